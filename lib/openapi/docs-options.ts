// The `docs` option: checked with the rest of the config (problems named by path), then resolved once
// into whether the documentation is served at all and whether it needs an authenticated caller.
import type { ContentConfig } from '../config/types';
import { isRecord } from '../util/is-record';

/** What the docs routes do, decided once when the router is built. */
export interface ResolvedDocsOptions {
  /** False when the host set `docs: false`: no docs routes at all, the paths fall through to the host. */
  readonly enabled: boolean;
  /** False: every docs route answers 401 to a caller who is not authenticated. */
  readonly public: boolean;
}

const KEYS = ['public'];

/** Problems of `config.docs`: the wrong type, unknown keys, a non-boolean `public`. */
export function validateDocsOptions(config: ContentConfig): string[] {
  const docs: unknown = config.docs;
  if (docs === undefined || docs === false || docs === true) return [];
  if (!isRecord(docs)) return ['docs: must be true, false or an object { public?: boolean }'];
  const problems: string[] = [];
  for (const key of Object.keys(docs)) {
    if (!KEYS.includes(key)) problems.push(`docs.${key}: unknown option`);
  }
  if (docs.public !== undefined && typeof docs.public !== 'boolean') problems.push('docs.public: must be a boolean');
  return problems;
}

/** Resolves a validated `docs` option: default on and public. */
export function resolveDocsOptions(docs: ContentConfig['docs']): ResolvedDocsOptions {
  if (docs === false) return { enabled: false, public: false };
  return { enabled: true, public: docs === true ? true : (docs?.public ?? true) };
}
