// A clock a spec moves by hand (`config.clock`): an expiry passes when the spec says so, not after a wait.
// It starts at the system time (tokens, rows and TTL indexes look like real ones) and stands still until moved.

export interface TestClock {
  now(): Date;
  /** Moves the clock forward by `ms` (a duration such as 16 * 60_000). */
  advance(ms: number): void;
  /** Sets the clock to `at`. */
  set(at: Date | number): void;
}

export function createTestClock(start: Date | number = Date.now()): TestClock {
  let current = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => new Date(current),
    advance(ms) {
      current += ms;
    },
    set(at) {
      current = typeof at === 'number' ? at : at.getTime();
    },
  };
}
