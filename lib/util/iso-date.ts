// Dates as ISO-8601 text, exactly as Date#toISOString writes them, computed with integer arithmetic for
// years 0000-9999: every record carries its timestamps, and the runtime's own formatting is slow enough
// to weigh on a list. Any other date, and an invalid one (which throws RangeError), is left to toISOString.

/** "00" to "99". */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : String(n)));

const MS_PER_DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the dates whose year has four digits. */
const FIRST = firstOfYearZero();
const LAST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function firstOfYearZero(): number {
  // Not Date.UTC(0, 0, 1): it reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(0, 0, 1);
  return date.getTime();
}

/** `date.toISOString()`, faster for years 0000-9999; throws RangeError for an invalid date, as it does. */
export function toIsoString(date: Date): string {
  const time = date.getTime();
  if (!(time >= FIRST && time <= LAST)) return date.toISOString();
  const days = Math.floor(time / MS_PER_DAY);
  let ms = time - days * MS_PER_DAY;
  // Civil date from days since 1970-01-01 (Howard Hinnant's days_from_civil, inverted), in 400-year eras
  // of 146,097 days whose years start on March 1st, so the leap day falls at the end of each year.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = Math.floor(ms / 1000);
  ms -= seconds * 1000;
  const millis = ms < 10 ? `00${ms}` : ms < 100 ? `0${ms}` : String(ms);
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${millis}Z`;
}
