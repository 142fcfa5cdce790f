// Case-insensitive text matching built from client text: every regex metacharacter escaped,
// only the LIKE wildcards `%` and `_` given a meaning. No client text ever reaches Mongo as regex syntax.
const METACHARACTERS = /[.*+?^${}()|[\]\\/]/g;
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** `\xHH`, which JavaScript, PCRE (MongoDB) and Java regexes all read as that one character. */
function hexEscape(character: string): string {
  return `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * `text` with every regex metacharacter escaped, and control characters written as `\xHH`: a BSON
 * regex pattern is a C string, so a raw NUL could not be sent at all, while `\x00` matches a stored NUL.
 */
function escapeRegExp(text: string): string {
  return text.replace(METACHARACTERS, '\\$&').replace(CONTROL_CHARACTERS, hexEscape);
}

/** Matches values containing `text` anywhere, ignoring case. */
export function toSubstringRegExp(text: string): RegExp {
  return new RegExp(escapeRegExp(text), 'i');
}

/** One `%`-free part of a LIKE pattern: `_` is any one character, everything else literal. */
function likeSegment(segment: string): string {
  // [\s\S] rather than `.`, so wildcards span newlines in textarea values without the `s` flag.
  return (segment.match(/_|[^_]+/g) ?? []).map((token) => (token === '_' ? '[\\s\\S]' : escapeRegExp(token))).join('');
}

/**
 * The `like` operator: with `%` (any run, consecutive ones collapsed) or `_` (one character) it is an
 * anchored pattern over the whole value; without them a substring match. Both ignore case.
 *
 * `a%b%c%d` is not `^a.*b.*c.*d$`: with k wildcards that backtracks in O(n^k) on a value that almost
 * matches, which a client could use to stall the database. The parts between wildcards have fixed
 * lengths, so their leftmost occurrences are always the right ones: each is found once and committed
 * (`(?=([\s\S]*?part))\N`, an atomic group JavaScript, PCRE and Java all understand), so the work grows
 * with the value's length times the number of wildcards, never with its power.
 */
export function toLikeRegExp(pattern: string): RegExp {
  if (!/[%_]/.test(pattern)) return toSubstringRegExp(pattern);
  const parts = pattern.split(/%+/).map(likeSegment);
  if (parts.length === 1) return new RegExp(`^${parts[0]}$`, 'i');
  const middle = parts
    .slice(1, -1)
    .filter((part) => part !== '')
    .map((part, index) => `(?=([\\s\\S]*?${part}))\\${index + 1}`)
    .join('');
  return new RegExp(`^${parts[0]}${middle}[\\s\\S]*${parts[parts.length - 1]}$`, 'i');
}
