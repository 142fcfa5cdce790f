import { toIsoString } from '../../lib/util/iso-date';

/** A seeded generator, so a failure names a date that fails again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const yearStart = (year: number): number => {
  const date = new Date(0);
  date.setUTCFullYear(year, 0, 1);
  return date.getTime();
};

describe('toIsoString', () => {
  it('writes exactly what Date#toISOString writes, over 200,000 dates from year 0000 to 9999', () => {
    const next = random(20261124);
    const first = yearStart(0);
    const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    const mismatches: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const date = new Date(first + Math.floor(next() * (last - first + 1)));
      if (toIsoString(date) !== date.toISOString()) mismatches.push(date.toISOString());
    }
    expect(mismatches).toEqual([]);
  });

  it.each([
    ['the first date of year 0000', yearStart(0)],
    ['the last date of year 9999', Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
    ['the epoch', 0],
    ['the millisecond before the epoch', -1],
    ['a leap day', Date.UTC(2024, 1, 29, 12, 0, 0, 5)],
    ['the day after a century leap day', Date.UTC(2000, 2, 1)],
    ['the end of a century year that is not a leap year', Date.UTC(1900, 1, 28, 23, 59, 59, 999)],
    ['the first day of 2100 (not a leap year)', Date.UTC(2100, 2, 1)],
    ['a date before the epoch with milliseconds', Date.UTC(1969, 11, 31, 23, 59, 59, 90)],
    ['a date in year 0 after its leap day', yearStart(0) + 60 * 86_400_000],
  ])('writes %s as toISOString does', (_name, time) => {
    const date = new Date(time);
    expect(toIsoString(date)).toBe(date.toISOString());
  });

  it.each([
    ['a negative year', yearStart(-1)],
    ['a five-digit year', yearStart(10_000)],
    ['the last representable date', 8.64e15],
    ['the first representable date', -8.64e15],
  ])('leaves %s to toISOString (six-digit years with a sign)', (_name, time) => {
    const date = new Date(time);
    expect(toIsoString(date)).toBe(date.toISOString());
    expect(toIsoString(date)).toMatch(/^[+-]\d{6}-/);
  });

  it('throws RangeError for an invalid date, as toISOString does', () => {
    expect(() => toIsoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
