// The realtime option: accepted shapes, every problem named by path, defaults.
import { parseRealtimeOptions } from '../../lib/realtime/realtime-options';
import type { ContentConfig } from '../../lib';

const config = (realtime: unknown): ContentConfig => ({ db: { uri: 'mongodb://x' }, collections: [], realtime } as ContentConfig);
const validateRealtimeConfig = (value: ContentConfig) => parseRealtimeOptions(value).problems;
const resolveRealtimeOptions = (realtime: unknown) => parseRealtimeOptions(config(realtime)).options;

describe('realtime options', () => {
  it('accepts absent, booleans and known numeric options', () => {
    for (const value of [undefined, true, false, {}, { heartbeatMs: 1000, maxBufferedEvents: 5, maxSubscriptions: 2, credentialCheckMs: 100, replayEvents: 10, maxConnectionsPerClient: 1 }]) {
      expect(validateRealtimeConfig(config(value))).toEqual([]);
    }
  });

  it('names every bad or unknown option', () => {
    expect(validateRealtimeConfig(config('yes'))).toEqual(['realtime: must be true, false or an object of options']);
    expect(validateRealtimeConfig(config({ heartbeatMs: 0, maxSubscriptions: 1.5, maxBufferedEvents: '10', hartbeat: 1, maxConnectionsPerClient: 0 }))).toEqual([
      'realtime.hartbeat: unknown option',
      'realtime.heartbeatMs: must be an integer >= 1',
      'realtime.maxBufferedEvents: must be an integer >= 1',
      'realtime.maxSubscriptions: must be an integer >= 1',
      'realtime.maxConnectionsPerClient: must be an integer >= 1',
    ]);
  });

  it('refuses a timer longer than Node can keep (it would fire every millisecond)', () => {
    expect(validateRealtimeConfig(config({ heartbeatMs: 2 ** 31, credentialCheckMs: 2 ** 31 - 1 }))).toEqual(['realtime.heartbeatMs: at most 2147483647 (about 24.8 days)']);
  });

  it('resolves defaults, overrides and off', () => {
    expect(resolveRealtimeOptions(undefined)).toBeUndefined();
    expect(resolveRealtimeOptions(false)).toBeUndefined();
    expect(resolveRealtimeOptions(true)).toEqual({ heartbeatMs: 25000, maxBufferedEvents: 1000, maxSubscriptions: 50, credentialCheckMs: 30000, replayEvents: 1000, maxConnectionsPerClient: 50 });
    expect(resolveRealtimeOptions({ heartbeatMs: 10 })?.heartbeatMs).toBe(10);
    expect(resolveRealtimeOptions({ heartbeatMs: 10 })?.maxSubscriptions).toBe(50);
  });

  it('is reported through contentRouter as a config problem', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the one test that needs the whole router
    const { contentRouter } = require('../../lib') as typeof import('../../lib');
    expect(() => contentRouter(config({ heartbeatMs: -1 }))).toThrow(/realtime\.heartbeatMs: must be an integer >= 1/);
  });
});
