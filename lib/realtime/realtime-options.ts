// The `realtime` option: checked and resolved in one pass at start-up, with every other config problem, to
// complete numbers the transports use (heartbeat, buffers, subscriptions, credential re-checks, replay, connections).
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig } from '../config/types';
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

/** Checks and resolves `config.realtime`; the options are undefined when realtime is off. */
export function parseRealtimeOptions(config: ContentConfig): ParsedOptions<ResolvedRealtimeOptions | undefined> {
  const value: unknown = config.realtime;
  if (value === undefined || value === false) return { problems: [], options: undefined };
  if (value === true) return { problems: [], options: DEFAULTS };
  if (!isRecord(value)) return { problems: ['realtime: must be true, false or an object of options'], options: undefined };
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!(KEYS as string[]).includes(key)) problems.push(`realtime.${key}: unknown option`);
  }
  const options: { -readonly [K in keyof ResolvedRealtimeOptions]: number } = { ...DEFAULTS };
  for (const key of KEYS) {
    const option = value[key];
    if (option === undefined) continue;
    if (typeof option !== 'number' || !Number.isInteger(option) || option < 1) problems.push(`realtime.${key}: must be an integer >= 1`);
    else if (key.endsWith('Ms') && option > MAX_TIMER_MS) problems.push(`realtime.${key}: at most ${MAX_TIMER_MS} (about 24.8 days)`);
    else options[key] = option;
  }
  return { problems, options: Object.freeze(options) };
}
