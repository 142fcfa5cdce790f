// The router's one source of the current time. Every time-based decision (token issue and expiry dates,
// refresh, reset and verification expiries, login lockouts, Idempotency-Key TTLs and leases, webhook
// schedules and retention, rate-limit windows kept in MongoDB, realtime credential re-checks, record
// timestamps) asks the clock of the config, so a host or a test can move time instead of waiting for it.
// Timers that only schedule work (setTimeout delays, heartbeats) stay on Node's own clock.

/** Tells the current time. `config.clock`; default the system clock. */
export interface Clock {
  /** The current time. Called for every time-based decision, so it should be cheap. */
  now(): Date;
}

/** The system clock: the default of `config.clock`. */
export const systemClock: Clock = Object.freeze({ now: () => new Date() });

/** The clock's time in milliseconds since the epoch. */
export function nowMs(clock: Clock): number {
  return clock.now().getTime();
}

/** The clock's time plus `ms` milliseconds, as a Date (an expiry, a lease's end). */
export function after(clock: Clock, ms: number): Date {
  return new Date(nowMs(clock) + ms);
}
