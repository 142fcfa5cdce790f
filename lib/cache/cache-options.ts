// The `cache` option of each collection, `{ ttl, max? }`: checked and resolved in one pass at start-up
// (problems named by path like every config problem), to the stores' settings by collection slug.
import type { CacheOptions, ContentConfig } from '../config/types';
import type { ParsedOptions } from '../config/resolve-config';
import { isRecord } from '../util/is-record';

/** Entries per collection when `max` is not given. */
export const DEFAULT_MAX_ENTRIES = 1000;

const KEYS = new Set(['ttl', 'max']);

/** Each cached collection's store settings, by slug; empty when no collection has `cache`. */
export type ResolvedCacheOptions = ReadonlyMap<string, Readonly<Required<CacheOptions>>>;

/** Checks and resolves `collections[i].cache`. */
export function parseCacheOptions(config: ContentConfig): ParsedOptions<ResolvedCacheOptions> {
  const problems: string[] = [];
  const options = new Map<string, Readonly<Required<CacheOptions>>>();
  (Array.isArray(config.collections) ? config.collections : []).forEach((collection, i) => {
    const cache = (collection as { cache?: unknown } | undefined)?.cache;
    if (cache === undefined) return;
    const path = `collections[${i}].cache`;
    if (!isRecord(cache)) {
      problems.push(`${path}: must be an object like { ttl: 60 }`);
      return;
    }
    for (const key of Object.keys(cache)) if (!KEYS.has(key)) problems.push(`${path}.${key}: unknown option`);
    const { ttl, max } = cache;
    const validTtl = typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0;
    if (!validTtl) problems.push(`${path}.ttl: must be a number of seconds greater than 0`);
    const validMax = max === undefined || (typeof max === 'number' && Number.isInteger(max) && max >= 1);
    if (!validMax) problems.push(`${path}.max: must be an integer of at least 1`);
    if (validTtl && validMax) options.set(collection.slug, Object.freeze({ ttl, max: max ?? DEFAULT_MAX_ENTRIES }));
  });
  return { problems, options };
}
