// Checks the `cache` option of each collection, `{ ttl, max? }`, and applies its defaults; problems are
// named by path like every config problem.
import type { CacheOptions, ContentConfig } from '../config/types';

/** Entries per collection when `max` is not given. */
export const DEFAULT_MAX_ENTRIES = 1000;

const KEYS = new Set(['ttl', 'max']);

/** Problems with `collections[i].cache`, for Feature.validate. */
export function validateCacheOptions(config: ContentConfig): string[] {
  const problems: string[] = [];
  (Array.isArray(config.collections) ? config.collections : []).forEach((collection, i) => {
    const cache = (collection as { cache?: unknown } | undefined)?.cache;
    if (cache === undefined) return;
    const path = `collections[${i}].cache`;
    if (typeof cache !== 'object' || cache === null || Array.isArray(cache)) {
      problems.push(`${path}: must be an object like { ttl: 60 }`);
      return;
    }
    const options = cache as Record<string, unknown>;
    for (const key of Object.keys(options)) if (!KEYS.has(key)) problems.push(`${path}.${key}: unknown option`);
    if (typeof options.ttl !== 'number' || !Number.isFinite(options.ttl) || options.ttl <= 0) {
      problems.push(`${path}.ttl: must be a number of seconds greater than 0`);
    }
    if (options.max !== undefined && (typeof options.max !== 'number' || !Number.isInteger(options.max) || options.max < 1)) {
      problems.push(`${path}.max: must be an integer of at least 1`);
    }
  });
  return problems;
}

/** The options with defaults applied (after validation). */
export function resolveCacheOptions(options: CacheOptions): Required<CacheOptions> {
  return { ttl: options.ttl, max: options.max ?? DEFAULT_MAX_ENTRIES };
}
