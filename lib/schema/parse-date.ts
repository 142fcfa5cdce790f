// Dates as the API reads them, strictly: ISO 8601 text whose calendar date exists (no Feb 30), epoch
// milliseconds, or a Date. Shared by body validation and the query parser, so both accept the same dates.

const EPOCH_TEXT = /^-?\d+$/;
const YEAR_TEXT = /^\d{4}$/;
// ISO 8601: date, optionally a time, optionally an offset. A space may stand for the offset's `+`
// because an unencoded `+` in a URL query decodes to a space.
const ISO_TEXT =
  /^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+\- ]\d{2}(?::?\d{2})?)?)?)?$/;

function dateFromEpoch(ms: number): Date | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

function offsetMinutes(offset: string | undefined): number | undefined {
  if (offset === undefined || offset === 'Z' || offset === 'z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

// Built from the components rather than Date.parse: Date.parse rolls 2024-02-30 over to March 1st
// and reads an offset-less date-time in the server's local zone. Here it is always UTC.
/** An ISO 8601 date or date-time, or undefined when it is not one or names a day that does not exist. */
export function parseIsoDate(text: string): Date | undefined {
  const match = ISO_TEXT.exec(text);
  if (!match) return undefined;
  // (The cast: a group that took no part is undefined, which the typings of exec() omit.)
  const [, y, mo, d, h, mi, s, fraction, offset] = match as (string | undefined)[];
  const year = Number(y);
  const month = Number(mo);
  const day = d === undefined ? 1 : Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const ms = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  const shift = offsetMinutes(offset);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || shift === undefined) return undefined;
  // A day that rolled over (Feb 30 -> Mar 1) is not the day the client wrote.
  if (day < 1 || new Date(utcMs(year, month, day)).getUTCDate() !== day) return undefined;
  return dateFromEpoch(utcMs(year, month, day, hour, minute, second, ms) - shift * 60_000);
}

/**
 * Valid Dates; epoch milliseconds (a number, or a string of digits other than a 4-digit year);
 * ISO 8601 strings (`2024`, `2024-05`, `2024-05-01`, `2024-05-01T10:00[:00[.000]][Z|+02:00]`, UTC when no offset).
 */
export function castDate(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : new Date(value.getTime());
  if (typeof value === 'number') return Number.isFinite(value) ? dateFromEpoch(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (YEAR_TEXT.test(value)) return parseIsoDate(`${value}-01`);
  if (EPOCH_TEXT.test(value)) return dateFromEpoch(Number(value));
  return parseIsoDate(value);
}
