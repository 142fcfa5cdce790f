// scrypt hashing: per-password salt, self-describing format, constant-time verify, and the real
// default cost (measured here, reported in docs/auth.md).
import { DEFAULT_SCRYPT_PARAMS, hashPassword, isScryptCost, needsRehash, verifyPassword } from '../../lib/auth/password-hash';

const FAST = { cost: 1024, blockSize: 8, parallelization: 1 };

describe('password hashing', () => {
  it('hashes with the real default cost (N=2^15, r=8, p=1) and verifies', async () => {
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ cost: 32768, blockSize: 8, parallelization: 1 });
    const started = process.hrtime.bigint();
    const hash = await hashPassword('correct horse battery staple');
    const hashMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
    // A memory-hard hash must cost something: far more than a plain digest.
    expect(hashMs).toBeGreaterThan(5);
  });

  it('salts every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same password', FAST), hashPassword('same password', FAST)]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('never contains the password', async () => {
    const hash = await hashPassword('PlainTextSecret', FAST);
    expect(hash).not.toContain('PlainTextSecret');
  });

  it('verifies with the parameters stored in the hash, whatever the current ones', async () => {
    const old = await hashPassword('pw-123456', { cost: 2048, blockSize: 4, parallelization: 2 });
    expect(await verifyPassword('pw-123456', old)).toBe(true);
    expect(needsRehash(old, FAST)).toBe(true);
    expect(needsRehash(await hashPassword('pw-123456', FAST), FAST)).toBe(false);
  });

  it('treats NFC and NFD spellings of a password as the same password', async () => {
    const hash = await hashPassword('caf\u00e9-pass', FAST);
    expect(await verifyPassword('cafe\u0301-pass', hash)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['not a string', 42],
    ['plain text', 'hunter22'],
    ['another scheme', '$2b$10$abcdefghijklmnopqrstuv'],
    ['too many parts', 'scrypt$1024$8$1$a$b$c'],
    ['cost not a power of two', 'scrypt$1000$8$1$c2FsdHNhbHQ$' + 'A'.repeat(86)],
    ['absurd cost (memory exhaustion)', 'scrypt$1073741824$8$1$c2FsdHNhbHQ$' + 'A'.repeat(86)],
    ['absurd block size', 'scrypt$1024$4096$1$c2FsdHNhbHQ$' + 'A'.repeat(86)],
    ['short key', 'scrypt$1024$8$1$c2FsdHNhbHQ$AAAA'],
  ])('never matches (nor throws on) a malformed stored hash: %s', async (_name, stored) => {
    expect(await verifyPassword('hunter22', stored)).toBe(false);
    expect(needsRehash(stored, FAST)).toBe(true);
  });

  it('accepts only powers of two as the cost', () => {
    expect([2, 1024, 32768, 2 ** 20].every(isScryptCost)).toBe(true);
    expect([0, 1, 3, 1000, 2 ** 21, 1.5, '1024'].some(isScryptCost)).toBe(false);
  });
});
