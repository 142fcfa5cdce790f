// The `realtime` option: checked once with every other config problem, then resolved to complete
// numbers the transports use (heartbeat, buffers, subscriptions, credential re-checks, replay, connections).
import type { ContentConfig, RealtimeOptions } from '../config/types';
import { isRecord } from '../util/is-record';

export interface ResolvedRealtimeOptions {
  readonly heartbeatMs: number;
  readonly maxBufferedEvents: number;
  readonly maxSubscriptions: number;
  readonly credentialCheckMs: number;
  readonly replayEvents: number;
  readonly maxConnectionsPerClient: number;
}

const DEFAULTS: ResolvedRealtimeOptions = Object.freeze({
  heartbeatMs: 25_000,
  maxBufferedEvents: 1000,
  maxSubscriptions: 50,
  credentialCheckMs: 30_000,
  replayEvents: 1000,
  maxConnectionsPerClient: 50,
});

const KEYS = Object.keys(DEFAULTS) as (keyof ResolvedRealtimeOptions)[];

/** Node's timers take at most 2^31 - 1 ms; a larger delay fires after 1 ms, every 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Problems of `config.realtime`, named by path; none when it is absent, false or true. */
export function validateRealtimeConfig(config: ContentConfig): string[] {
  const value: unknown = config.realtime;
  if (value === undefined || typeof value === 'boolean') return [];
  if (!isRecord(value)) return ['realtime: must be true, false or an object of options'];
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!(KEYS as string[]).includes(key)) problems.push(`realtime.${key}: unknown option`);
  }
  for (const key of KEYS) {
    const option = value[key];
    if (option === undefined) continue;
    if (typeof option !== 'number' || !Number.isInteger(option) || option < 1) problems.push(`realtime.${key}: must be an integer >= 1`);
    else if (key.endsWith('Ms') && option > MAX_TIMER_MS) problems.push(`realtime.${key}: at most ${MAX_TIMER_MS} (about 24.8 days)`);
  }
  return problems;
}

/** The complete options, or undefined when realtime is off. */
export function resolveRealtimeOptions(value: boolean | RealtimeOptions | undefined): ResolvedRealtimeOptions | undefined {
  if (!value) return undefined;
  if (value === true) return DEFAULTS;
  return Object.freeze({ ...DEFAULTS, ...Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) });
}
