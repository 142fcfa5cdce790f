// Access tokens (pure): HS256 only; tampering, alg none, wrong secret, other algorithms, expiry,
// issuer/audience and foreign claim shapes are all refused.
import jwt from 'jsonwebtoken';
import { readAccessClaims, signAccessToken, toSigningKey, verifyAccessToken } from '../../lib/auth/access-token';
import { createRandomToken, hashToken } from '../../lib/util/random-token';

const options = { secret: toSigningKey('a'.repeat(40)) };
/** The router's clock at the time of each check (a fixed instant: these tests move it by hand). */
const NOW = new Date();
const claims = { sub: '0123456789abcdef01234567', col: 'users', sid: 'fam-1' };
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('signAccessToken / verifyAccessToken', () => {
  it('round-trips the claims with typ access, iat and exp', () => {
    const token = signAccessToken(claims, 900, options, NOW);
    expect(verifyAccessToken(token, options, NOW)).toEqual({ ...claims, typ: 'access' });
    const payload = jwt.decode(token) as Record<string, number>;
    expect(payload.exp - payload.iat).toBe(900);
    expect(jwt.decode(token, { complete: true })?.header.alg).toBe('HS256');
  });

  it('refuses a tampered payload (signature no longer matches)', () => {
    const [header, , signature] = signAccessToken(claims, 900, options, NOW).split('.');
    const forged = `${header}.${b64({ ...claims, sub: 'ffffffffffffffffffffffff', typ: 'access', iat: 1, exp: 9999999999 })}.${signature}`;
    expect(verifyAccessToken(forged, options, NOW)).toBe('invalid');
  });

  it('refuses alg none, with or without a signature', () => {
    const payload = b64({ ...claims, typ: 'access', exp: Math.floor(Date.now() / 1000) + 900 });
    const header = b64({ alg: 'none', typ: 'JWT' });
    expect(verifyAccessToken(`${header}.${payload}.`, options, NOW)).toBe('invalid');
    expect(verifyAccessToken(`${header}.${payload}`, options, NOW)).toBe('invalid');
    const none = jwt.sign({ ...claims, typ: 'access' }, '', { algorithm: 'none' });
    expect(verifyAccessToken(none, options, NOW)).toBe('invalid');
  });

  it('refuses another secret and another algorithm with the right secret', () => {
    expect(verifyAccessToken(signAccessToken(claims, 900, { secret: toSigningKey('b'.repeat(40)) }, NOW), options, NOW)).toBe('invalid');
    const hs512 = jwt.sign({ ...claims, typ: 'access' }, options.secret, { algorithm: 'HS512', expiresIn: 900 });
    expect(verifyAccessToken(hs512, options, NOW)).toBe('invalid');
  });

  it('tells an expired token apart', () => {
    const now = Math.floor(NOW.getTime() / 1000);
    const expired = jwt.sign({ ...claims, typ: 'access', iat: now - 1000, exp: now - 10 }, options.secret, { algorithm: 'HS256' });
    expect(verifyAccessToken(expired, options, NOW)).toBe('expired');
  });

  it('decides expiry by the clock it is given: issued at that time, expired once it reaches exp', () => {
    const issued = new Date('2031-01-01T00:00:00Z');
    const token = signAccessToken(claims, 900, options, issued);
    expect(jwt.decode(token)).toMatchObject({ iat: 1924992000, exp: 1924992000 + 900 });
    expect(verifyAccessToken(token, options, new Date(issued.getTime() + 899_000))).toEqual({ ...claims, typ: 'access' });
    expect(verifyAccessToken(token, options, new Date(issued.getTime() + 900_000))).toBe('expired');
    // Not yet valid for the system clock of today, and valid for the router's.
    expect(verifyAccessToken(token, options, NOW)).toEqual({ ...claims, typ: 'access' });
  });

  it('refuses any crit header parameter, with the right secret: no extension is understood (RFC 7515)', () => {
    const payload = { ...claims, typ: 'access' };
    for (const header of [{ alg: 'HS256', crit: ['exp'] }, { alg: 'HS256', crit: ['foo'], foo: 'bar' }, { alg: 'HS256', crit: [] }]) {
      const token = jwt.sign(payload, options.secret, { algorithm: 'HS256', expiresIn: 900, header: header as jwt.JwtHeader });
      expect(jwt.verify(token, options.secret)).toMatchObject(payload);
      expect(verifyAccessToken(token, options, NOW)).toBe('invalid');
    }
  });

  it('checks issuer and audience when configured', () => {
    const scoped = { ...options, issuer: 'https://api.example.com', audience: 'web' };
    expect(verifyAccessToken(signAccessToken(claims, 900, scoped, NOW), scoped, NOW)).toEqual({ ...claims, typ: 'access' });
    expect(verifyAccessToken(signAccessToken(claims, 900, options, NOW), scoped, NOW)).toBe('invalid');
    expect(verifyAccessToken(signAccessToken(claims, 900, { ...scoped, audience: 'mobile' }, NOW), scoped, NOW)).toBe('invalid');
  });

  it.each<[string, string]>([
    ['garbage', 'not-a-jwt'],
    ['empty', ''],
    ['three dots of nothing', '..'],
  ])('refuses %s', (_name, token) => {
    expect(verifyAccessToken(token, options, NOW)).toBe('invalid');
  });

  it('refuses a validly signed JWT that is not an access token of ours', () => {
    const other = jwt.sign({ sub: claims.sub, typ: 'refresh', col: 'users', sid: 'x' }, options.secret, { algorithm: 'HS256', expiresIn: 900 });
    expect(verifyAccessToken(other, options, NOW)).toBe('invalid');
    expect(readAccessClaims({ sub: 1, col: 'users', sid: 'x', typ: 'access' }, NOW)).toBe('invalid');
    expect(readAccessClaims(null, NOW)).toBe('invalid');
  });
});

describe('random tokens', () => {
  it('are 256-bit base64url strings, prefixed on request, different every time', () => {
    const a = createRandomToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createRandomToken('ck_')).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    expect(new Set(Array.from({ length: 100 }, () => createRandomToken())).size).toBe(100);
  });

  it('are stored as a SHA-256 hex digest that does not contain the token', () => {
    const token = createRandomToken();
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toContain(token);
  });
});
