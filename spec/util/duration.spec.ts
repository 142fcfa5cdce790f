// Duration options: "15m", "7d", or a number of seconds. Anything else (unit-less strings, zero,
// negatives, compound durations) is refused with undefined, never guessed.
import { parseDuration } from '../../lib/util/duration';

describe('parseDuration', () => {
  it.each<[unknown, number]>([
    ['500ms', 500],
    ['30s', 30_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    [' 12h ', 43_200_000],
    ['10 m', 600_000],
    [60, 60_000],
    [1.5, 1500],
  ])('%p -> %p ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each<[unknown]>([['15'], ['m'], ['15x'], ['1.5h'], ['-5m'], ['0s'], [0], [-1], [''], ['1h30m'], [null], [undefined], [{}], [Number.NaN], [Infinity], ['99999999999999999999d']])(
    'refuses %p',
    (input) => {
      expect(parseDuration(input)).toBeUndefined();
    },
  );
});
