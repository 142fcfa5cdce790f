// The password policy: every broken rule reported at once, characters counted as the
// user sees them, a hard length cap, and never the password echoed in a message.
import { MAX_PASSWORD_LENGTH, checkPassword, resolvePasswordPolicy } from '../../lib/auth/password-policy';

const strict = resolvePasswordPolicy({ minLength: 12, requireUppercase: true, requireNumbers: true, requireSymbols: true });

describe('password policy', () => {
  it('defaults to 8 characters and no composition rules', () => {
    expect(resolvePasswordPolicy()).toEqual({ minLength: 8, requireUppercase: false, requireNumbers: false, requireSymbols: false });
    expect(checkPassword('abcdefgh', resolvePasswordPolicy())).toEqual([]);
    expect(checkPassword('abcdefg', resolvePasswordPolicy()).map((e) => e.code)).toEqual(['too_short']);
  });

  it('lists every broken rule, naming the field, without the password', () => {
    const errors = checkPassword('short', strict);
    expect(errors.map((e) => e.code)).toEqual(['too_short', 'missing_uppercase', 'missing_number', 'missing_symbol']);
    for (const error of errors) {
      expect(error.field).toBe('password');
      expect(error.message).not.toContain('short ');
    }
    expect(errors[0].message).toBe('password must be at least 12 characters');
  });

  it('accepts a password that meets every rule, Unicode included', () => {
    expect(checkPassword('Correct-horse-9', strict)).toEqual([]);
    expect(checkPassword('Ünïcødé-pässwörd-7', strict)).toEqual([]);
  });

  it('counts characters as the user sees them (code points)', () => {
    const policy = resolvePasswordPolicy({ minLength: 4 });
    expect(checkPassword('😀😀😀', policy).map((e) => e.code)).toEqual(['too_short']);
    expect(checkPassword('😀😀😀😀', policy)).toEqual([]);
  });

  it('caps the length whatever the policy, and rejects non-strings', () => {
    expect(checkPassword('a'.repeat(MAX_PASSWORD_LENGTH + 1), resolvePasswordPolicy()).map((e) => e.code)).toEqual(['too_long']);
    expect(checkPassword(12345678, resolvePasswordPolicy()).map((e) => e.code)).toEqual(['invalid_type']);
  });

  it('does not count whitespace as a symbol', () => {
    const symbols = resolvePasswordPolicy({ requireSymbols: true });
    expect(checkPassword('with spaces only', symbols).map((e) => e.code)).toEqual(['missing_symbol']);
  });
});
