// Preconditions on a record's writes (If-Match, https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1).
// A record's ETag is a hash of the record exactly as this caller reads it with a plain GET, so it changes
// whenever the record does and differs between callers who see different fields. A write with If-Match
// compares it with the record as stored now, then writes only where the stored revision is still the one
// compared (revision.ts): nobody's change slips in between.
import { createHash } from 'node:crypto';
import { InvalidHeaderError, NotFoundError, PreconditionFailedError } from '../errors';

/** `*` (any current record), or the entity-tags the client holds, as sent (`"…"` or `W/"…"`). */
export type IfMatch = '*' | readonly string[];

/** The strong ETag of a representation: a hash of its JSON, quoted as the header carries it. */
export function representationTag(value: unknown): string {
  return jsonTag(JSON.stringify(value));
}

/** The strong ETag of a representation already serialized as JSON (representationTag of the value it is). */
export function jsonTag(json: string): string {
  return `"${createHash('sha1').update(json).digest('base64url')}"`;
}

/** Longest If-Match value taken. */
const MAX_LENGTH = 255;
/**
 * One list member from `lastIndex` on (sticky): empty members and spaces before it, an entity-tag (optional
 * W/, then a quoted string of etagc: visible ASCII but the quote, or obs-text; commas included), then the
 * comma that ends it or the end of the value.
 */
const MEMBER = /[ \t,]*((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

/** The entity-tags of a comma-separated list, or undefined when it is not one. Commas inside quotes belong to their tag. */
function entityTags(list: string): string[] | undefined {
  const tags: string[] = [];
  MEMBER.lastIndex = 0;
  while (MEMBER.lastIndex < list.length) {
    const at = MEMBER.lastIndex;
    const match = MEMBER.exec(list);
    if (!match) return /^[ \t,]*$/.test(list.slice(at)) && tags.length > 0 ? tags : undefined;
    tags.push(match[1]);
  }
  return tags.length > 0 ? tags : undefined;
}

/**
 * Reads an If-Match value: `*` or a comma-separated list of entity-tags. Throws a 400 naming the header
 * for anything else (empty, too long, control characters, an unquoted tag).
 */
export function parseIfMatch(value: string, header = 'If-Match'): IfMatch {
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidHeaderError(header, 'must be * or a list of ETags, not empty.');
  if (value.length > MAX_LENGTH) throw new InvalidHeaderError(header, `must be at most ${MAX_LENGTH} characters.`);
  if (trimmed === '*') return '*';
  const tags = entityTags(trimmed);
  if (!tags) {
    throw new InvalidHeaderError(header, 'must be * or a comma-separated list of quoted ETags ("..." as a GET answered it).');
  }
  return tags;
}

/** The tags a write must match, or undefined when any current record will do (no header, or `*`). */
export function tagsToMatch(ifMatch: IfMatch | undefined): readonly string[] | undefined {
  return ifMatch === undefined || ifMatch === '*' ? undefined : ifMatch;
}

/**
 * Throws 412 unless `representation` (the record as this caller reads it now) has one of the tags. Strong
 * comparison: a weak tag never matches.
 */
export function assertTagMatches(tags: readonly string[], representation: unknown, detail?: string): void {
  if (!tags.includes(representationTag(representation))) throw new PreconditionFailedError(detail);
}

/**
 * After a write conditioned on a revision matched nothing: 412 when the record is still there (someone
 * changed it since it was compared), else 404 (it is gone).
 */
export async function conditionalMiss(stillThere: Promise<unknown>, notFound: NotFoundError): Promise<never> {
  if (await stillThere) throw new PreconditionFailedError();
  throw notFound;
}
