// The `audit` option, checked and resolved in one pass at start-up with every other config problem: which
// collections are recorded, how long entries are kept, where they are shipped and who reads them.
import type { AuditReadRule, ContentConfig } from '../config/types';
import type { ParsedOptions } from '../config/resolve-config';
import { UPLOADS_SLUG } from '../schema/descriptors';
import { parseDuration } from '../util/duration';
import { isRecord } from '../util/is-record';
import type { AuditEntry } from './audit-entry';

/** `audit`, resolved; undefined when the audit log is off (no `audit` option). */
export interface ResolvedAudit {
  /** Whether a change of the collection or global `slug` (`_uploads`: files) is recorded. */
  readonly records: (slug: string) => boolean;
  /** How long entries are kept (ms); 0 keeps them all. */
  readonly retentionMs: number;
  readonly sink?: (entry: AuditEntry) => void | Promise<void>;
  /** Undefined: the default rule (role admin, and an API key with the admin scope). */
  readonly read?: AuditReadRule;
}

const DEFAULT_RETENTION_MS = 90 * 24 * 3_600_000;
const KEYS = ['collections', 'retention', 'sink', 'access'];
const SHAPE = 'audit: must be an object { collections, retention, sink, access }';

/** The slugs `collections` may name: the collections, the globals and the files (`_uploads`). */
function knownSlugs(config: ContentConfig): Set<string> {
  const slugs = new Set<string>([UPLOADS_SLUG]);
  for (const owner of [...(config.collections ?? []), ...(config.globals ?? [])]) if (isRecord(owner) && typeof owner.slug === 'string') slugs.add(owner.slug);
  return slugs;
}

function parseCollections(value: unknown, config: ContentConfig, problems: string[]): ((slug: string) => boolean) | undefined {
  if (value === undefined || value === '*') return () => true;
  if (!Array.isArray(value) || value.some((slug) => typeof slug !== 'string')) {
    problems.push("audit.collections: must be '*' or an array of collection and global slugs");
    return undefined;
  }
  const known = knownSlugs(config);
  value.forEach((slug: string, index) => {
    if (!known.has(slug)) problems.push(`audit.collections[${index}]: "${slug}" is not a collection, a global or ${UPLOADS_SLUG}`);
  });
  const listed = new Set<string>(value as string[]);
  return (slug) => listed.has(slug);
}

function parseRetention(value: unknown, problems: string[]): number {
  if (value === undefined) return DEFAULT_RETENTION_MS;
  if (value === 0 || value === '0') return 0;
  const ms = parseDuration(value);
  // A TTL index counts whole seconds.
  if (ms === undefined || ms < 1000) {
    problems.push('audit.retention: must be a duration of at least 1 s ("90d", "52w", "12h", or a number of seconds), or 0 to keep every entry');
    return 0;
  }
  return ms;
}

/** Checks and resolves `config.audit`; the options are undefined when it is absent (the audit log is off). */
export function parseAuditOptions(config: ContentConfig): ParsedOptions<ResolvedAudit | undefined> {
  const value: unknown = config.audit;
  if (value === undefined) return { problems: [], options: undefined };
  if (!isRecord(value)) return { problems: [SHAPE], options: undefined };
  const problems = Object.keys(value).filter((key) => !KEYS.includes(key)).map((key) => `audit.${key}: unknown option`);
  const records = parseCollections(value.collections, config, problems);
  const retentionMs = parseRetention(value.retention, problems);
  const { sink, access } = value;
  if (sink !== undefined && typeof sink !== 'function') problems.push('audit.sink: must be a function (entry) => void | Promise<void>');
  let read: AuditReadRule | undefined;
  if (access !== undefined) {
    if (!isRecord(access)) problems.push('audit.access: must be an object { read }');
    else {
      for (const key of Object.keys(access)) if (key !== 'read') problems.push(`audit.access.${key}: unknown option (the audit log is read-only: only read)`);
      if (access.read !== undefined && typeof access.read !== 'function') problems.push('audit.access.read: must be a function ({ user, req }) => boolean | where');
      else read = access.read as AuditReadRule | undefined;
    }
  }
  if (problems.length || !records) return { problems, options: undefined };
  return {
    problems,
    options: { records, retentionMs, ...(sink !== undefined && { sink: sink as ResolvedAudit['sink'] }), ...(read && { read }) },
  };
}
