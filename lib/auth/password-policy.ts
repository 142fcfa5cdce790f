// The password policy: pure checks that report every broken rule at once, so a client
// can show them all instead of failing one rule per attempt.
import type { PasswordPolicy } from '../config/types';
import type { ErrorDetail } from '../errors';

/** Longest password accepted, whatever the policy: bounds the work one request can ask of the KDF. */
export const MAX_PASSWORD_LENGTH = 1024;

export type ResolvedPasswordPolicy = Readonly<Required<PasswordPolicy>>;

/** The policy with its defaults: at least 8 characters, no composition rules (NIST SP 800-63B). */
export function resolvePasswordPolicy(policy: PasswordPolicy = {}): ResolvedPasswordPolicy {
  return Object.freeze({
    minLength: policy.minLength ?? 8,
    requireUppercase: policy.requireUppercase ?? false,
    requireNumbers: policy.requireNumbers ?? false,
    requireSymbols: policy.requireSymbols ?? false,
  });
}

function rule(code: string, message: string): ErrorDetail {
  return { field: 'password', code, message: `password ${message}` };
}

/** Every rule the password breaks (empty when it is acceptable). Never echoes the password. */
export function checkPassword(password: unknown, policy: ResolvedPasswordPolicy): ErrorDetail[] {
  if (typeof password !== 'string') return [rule('invalid_type', 'must be a string')];
  const errors: ErrorDetail[] = [];
  // Counted in code points, so an emoji is one character as the user sees it.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- the spread is what counts code points
  const length = [...password].length;
  if (length < policy.minLength) errors.push(rule('too_short', `must be at least ${policy.minLength} characters`));
  if (length > MAX_PASSWORD_LENGTH) errors.push(rule('too_long', `must be at most ${MAX_PASSWORD_LENGTH} characters`));
  if (policy.requireUppercase && !/\p{Lu}/u.test(password)) errors.push(rule('missing_uppercase', 'must contain an uppercase letter'));
  if (policy.requireNumbers && !/\p{Nd}/u.test(password)) errors.push(rule('missing_number', 'must contain a number'));
  if (policy.requireSymbols && !/[^\p{L}\p{N}\s]/u.test(password)) errors.push(rule('missing_symbol', 'must contain a symbol'));
  return errors;
}
