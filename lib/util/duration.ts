// Duration options ("15m", "7d", or a number of seconds, as jsonwebtoken takes them) -> milliseconds, for
// every feature with a duration option (auth's expiries, the idempotency TTL). Parsed once when the router
// is built; a bad value is a config error, never a per-request surprise.

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const DURATION = /^(\d+)\s*(ms|s|m|h|d|w)$/;

/**
 * Parses a duration: a string `<integer><unit>` with unit ms, s, m, h, d or w, or a number of seconds.
 * Returns milliseconds, or undefined for anything else (unit-less strings, zero, negatives, fractions of a unit).
 */
export function parseDuration(value: unknown): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value * 1000;
  } else if (typeof value === 'string') {
    const match = DURATION.exec(value.trim());
    if (!match) return undefined;
    ms = Number(match[1]) * UNIT_MS[match[2]];
  } else {
    return undefined;
  }
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}
