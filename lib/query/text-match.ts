// Case-insensitive text matching built from client text: every regex metacharacter escaped,
// only the LIKE wildcards `%` and `_` given a meaning. No client text ever reaches Mongo as regex syntax.
const METACHARACTERS = /[.*+?^${}()|[\]\\/]/g;
const LIKE_TOKENS = /%+|_|[^%_]+/g;

/** `text` with every regex metacharacter escaped. */
function escapeRegExp(text: string): string {
  return text.replace(METACHARACTERS, '\\$&');
}

/** Matches values containing `text` anywhere, ignoring case. */
export function toSubstringRegExp(text: string): RegExp {
  return new RegExp(escapeRegExp(text), 'i');
}

/**
 * The `like` operator: with `%` (any run, consecutive ones collapsed) or `_` (one character) it is an
 * anchored pattern over the whole value; without them a substring match. Both ignore case.
 */
export function toLikeRegExp(pattern: string): RegExp {
  if (!/[%_]/.test(pattern)) return toSubstringRegExp(pattern);
  // [\s\S] rather than `.`, so wildcards span newlines in textarea values without the `s` flag.
  const source = (pattern.match(LIKE_TOKENS) ?? [])
    .map((token) => (token.startsWith('%') ? '[\\s\\S]*' : token === '_' ? '[\\s\\S]' : escapeRegExp(token)))
    .join('');
  return new RegExp(`^${source}$`, 'i');
}
