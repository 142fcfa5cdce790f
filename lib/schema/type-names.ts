// The names the generated TypeScript file gives each collection, global and helper type. They live with
// the schema, below both users: the generator (types-gen) and the endpoints' config check (a body's type
// name must not clash with them) agree on one rule without one feature importing the other.
import type { ContentConfig } from '../config/types';
import { isRecord } from '../util/is-record';
import { FILE_RECORD_NAME } from './file-record';
import { PREVIEW_LINK_NAME, SCHEDULED_ACTION_NAME, VERSION_ACTOR_NAME } from './workflow-shapes';

/** Helper types the generated file may declare besides the per-collection ones. */
export const HELPER_TYPE_NAMES: readonly string[] = ['JsonValue', FILE_RECORD_NAME, 'UploadedFile'];

/** `blog-posts` / `blog_posts` -> `BlogPosts`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/**
 * English singular of a plural slug, by a few suffix rules: `categories` -> `category`, `boxes` -> `box`,
 * `posts` -> `post`; words ending in `ss`, `us` or `is` (`address`, `status`, `analysis`) stay as they are.
 */
export function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/s$/.test(word) && word.length > 1) return word.slice(0, -1);
  return word;
}

/** How summaries name the records of a collection: one (with its article) and several. */
export interface RecordNouns {
  /** `a post`, `a blog post`, `an entry`, `a staff record`. */
  one: string;
  /** `posts`, `blog posts`, `staff records`. */
  many: string;
}

/**
 * The English names of a collection's records, from its slug: its words apart, the last made singular
 * (`blog-posts` -> `a blog post` / `blog posts`); a slug with no plural ending (`staff`) names them
 * `a staff record` / `staff records`.
 */
export function recordNouns(slug: string): RecordNouns {
  const words = slug.split(/[-_]+/).filter(Boolean);
  const last = words[words.length - 1] ?? slug;
  const one = singular(last);
  const [singularWords, pluralWords] =
    one === last ? [[...words, 'record'], [...words, 'records']] : [[...words.slice(0, -1), one], words];
  const phrase = singularWords.join(' ');
  return { one: `${/^[aeio]/i.test(phrase) ? 'an' : 'a'} ${phrase}`, many: pluralWords.join(' ') };
}

/** The record type of a collection: its slug's last word made singular, in PascalCase (`blog-posts` -> `BlogPost`). */
export function collectionTypeName(slug: string): string {
  return pascalCase(singular(slug));
}

/** The type of a global: its slug in PascalCase (`site-settings` -> `SiteSettings`). */
export function globalTypeName(slug: string): string {
  return pascalCase(slug);
}

/** The history's (and with drafts the working copy's) type names of a versioned collection or global whose record type is `base`. */
export function workflowTypeNames(base: string, versions: { drafts: boolean } | undefined): { draft?: string; versionSummary: string; version: string; versionDiff: string } {
  return {
    ...(versions?.drafts && { draft: `${base}Draft` }),
    versionSummary: `${base}VersionSummary`,
    version: `${base}Version`,
    versionDiff: `${base}VersionDiff`,
  };
}

/** The helper types the history and drafts add: declared only when a collection or global keeps versions (drafts). */
const VERSION_HELPERS = ['VersionOp', VERSION_ACTOR_NAME];
const DRAFT_HELPERS = ['DraftStatus', SCHEDULED_ACTION_NAME, PREVIEW_LINK_NAME];

/** `versions` as the config spells it, read before the config is checked: off, on, or on with drafts. */
function versionsOf(entry: Record<string, unknown>): { drafts: boolean } | undefined {
  if (!entry.versions) return undefined;
  return { drafts: isRecord(entry.versions) && entry.versions.drafts === true };
}

/** Every name the generated file declares for collections, globals and helpers, with what declares it. */
export function generatedTypeNames(config: Pick<ContentConfig, 'collections' | 'globals'>): Map<string, string> {
  const names = new Map<string, string>();
  for (const name of HELPER_TYPE_NAMES) names.set(name, 'a helper type');
  const addHelpers = (versions: { drafts: boolean } | undefined) => {
    for (const name of versions ? [...VERSION_HELPERS, ...(versions.drafts ? DRAFT_HELPERS : [])] : []) names.set(name, 'a helper type');
  };
  // (The casts: the config is not validated yet, so an entry may be anything.)
  for (const collection of (Array.isArray(config.collections) ? config.collections : []) as unknown[]) {
    if (!isRecord(collection) || typeof collection.slug !== 'string') continue;
    const base = collectionTypeName(collection.slug);
    const versions = versionsOf(collection);
    const workflow = versions ? Object.values(workflowTypeNames(base, versions)) : [];
    for (const name of [base, `${base}Create`, `${base}Update`, ...workflow]) names.set(name, `collection "${collection.slug}"`);
    addHelpers(versions);
  }
  for (const global of (Array.isArray(config.globals) ? config.globals : []) as unknown[]) {
    if (!isRecord(global) || typeof global.slug !== 'string') continue;
    const base = globalTypeName(global.slug);
    const versions = versionsOf(global);
    const workflow = versions ? Object.values(workflowTypeNames(base, versions)) : [];
    for (const name of [base, `${base}Update`, ...workflow]) names.set(name, `global "${global.slug}"`);
    addHelpers(versions);
  }
  return names;
}
