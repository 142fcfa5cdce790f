// How credentials are presented: two package credentials at once, a Bearer value with trailing
// parts, a JWT without expiry, and tokens in places the router must never read them from.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { asUser } from '../helpers/create-test-app';
import { type AuthTestApp, PROBLEM, type Registered, SECRET, bearer, createAuthTestApp, registerUser } from './auth-test-app';

let t: AuthTestApp;
let user: Registered;
let key: string;
beforeAll(async () => {
  t = await createAuthTestApp({ collections: [{ slug: 'admins', auth: true, fields: {} }] });
  user = await registerUser(t);
  const res = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k', scopes: ['read'] });
  key = res.body.apiKey.key;
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

function expect401(res: request.Response, code?: string): void {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer');
  expect(res.headers['content-type']).toMatch(PROBLEM);
  if (code) expect(res.body.code).toBe(code);
}

describe('X-API-Key together with Authorization: Bearer', () => {
  it('a bad Bearer beside a valid X-API-Key is a 401, not silently ignored', async () => {
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', key).set(...bearer('garbage')));
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', key).set(...bearer(`${user.accessToken.slice(0, -4)}AAAA`)));
  });

  it('a valid Bearer JWT beside a valid X-API-Key is refused too: one credential per request', async () => {
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', key).set(...bearer(user.accessToken)));
  });

  it('a bad X-API-Key beside a valid Bearer JWT is a 401', async () => {
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', 'ck_unknown').set(...bearer(user.accessToken)));
  });

  it('the same key in both headers is one credential', async () => {
    expect((await request(t.app).get('/api/posts').set('X-API-Key', key).set(...bearer(key))).status).toBe(200);
  });

  it('X-API-Key beside another Authorization scheme (the host’s) still works', async () => {
    expect((await request(t.app).get('/api/posts').set('X-API-Key', key).set('Authorization', 'Basic dXNlcjpwYXNz')).status).toBe(200);
  });
});

describe('the Bearer value', () => {
  it('a valid JWT followed by more text is refused (passport-jwt would read only the first part)', async () => {
    expect401(await request(t.app).get('/api/users/me').set('Authorization', `Bearer ${user.accessToken} garbage`), 'invalid_token');
    expect401(await request(t.app).get('/api/users/me').set('Authorization', `Bearer ${user.accessToken}\tgarbage`), 'invalid_token');
  });

  it('an API key followed by more text is refused, also as X-API-Key', async () => {
    expect401(await request(t.app).get('/api/posts').set('Authorization', `Bearer ${key} extra`), 'invalid_api_key');
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', `${key} extra`), 'invalid_api_key');
  });

  it('scheme case and surrounding whitespace are tolerated', async () => {
    expect((await request(t.app).get('/api/users/me').set('Authorization', `bearer ${user.accessToken}`)).status).toBe(200);
    expect((await request(t.app).get('/api/users/me').set('Authorization', `BEARER   ${user.accessToken}  `)).status).toBe(200);
  });
});

describe('a malformed Bearer header beside a host user', () => {
  // Node reads header bytes as latin-1: a UTF-8 no-break space (C2 A0) arrives as 'Â\u00a0'.
  const nbsp = Buffer.from([0xc2, 0xa0]).toString('latin1');
  const malformed = (token: string) => [`Bearer${token}`, `Bearer:${token}`, `Bearer: ${token}`, `bearer:${token}`, `Bearer${nbsp}${token}`, `BEARER,${token}`];
  let postId: string;
  beforeAll(async () => {
    const res = await request(t.app).post('/api/posts').set(...bearer(user.accessToken)).send({ title: 'mine' });
    expect(res.status).toBe(201);
    postId = res.body.id;
  });

  it('the host user alone reads, and so it does beside another scheme (Basic, Token, JWT), which is the host’s', async () => {
    for (const header of [undefined, 'Basic dXNlcjpwYXNz', `Token ${user.accessToken}`, `JWT ${user.accessToken}`]) {
      const list = request(t.app).get('/api/posts').set(...asUser({ id: user.id }));
      const get = request(t.app).get(`/api/posts/${postId}`).set(...asUser({ id: user.id }));
      expect((await (header === undefined ? list : list.set('Authorization', header))).status).toBe(200);
      expect((await (header === undefined ? get : get.set('Authorization', header))).status).toBe(200);
    }
  });

  it('a header whose scheme starts with Bearer but is malformed is a 401 invalid_token, never the host user', async () => {
    for (const token of [user.accessToken, key]) {
      for (const header of malformed(token)) {
        expect401(await request(t.app).get('/api/posts').set(...asUser({ id: user.id })).set('Authorization', header), 'invalid_token');
        expect401(await request(t.app).get(`/api/posts/${postId}`).set(...asUser({ id: user.id })).set('Authorization', header), 'invalid_token');
      }
    }
  });

  it('without a host user it is a 401 too, not anonymous', async () => {
    for (const header of malformed(user.accessToken)) {
      expect401(await request(t.app).get('/api/users/me').set('Authorization', header), 'invalid_token');
    }
  });

  it('beside a valid X-API-Key it is refused as a second credential', async () => {
    expect401(await request(t.app).get('/api/posts').set('X-API-Key', key).set('Authorization', `Bearer:${key}`));
  });
});

describe('access tokens', () => {
  const claims = () => ({ typ: 'access', col: 'users', sid: 'x' });

  it('a correctly signed token without exp is refused: access tokens never live forever', async () => {
    const forever = jwt.sign(claims(), SECRET, { algorithm: 'HS256', subject: user.id });
    expect401(await request(t.app).get('/api/users/me').set(...bearer(forever)), 'invalid_token');
  });

  it('kid/jku headers change nothing, and RS256/HS384/HS512 with the secret are refused', async () => {
    const withJku = jwt.sign(claims(), SECRET, { algorithm: 'HS256', subject: user.id, expiresIn: 60, keyid: 'x', header: { alg: 'HS256', jku: 'https://evil.example/jwks' } as jwt.JwtHeader });
    expect((await request(t.app).get('/api/users/me').set(...bearer(withJku))).status).toBe(200);
    for (const algorithm of ['HS384', 'HS512'] as const) {
      expect401(await request(t.app).get('/api/users/me').set(...bearer(jwt.sign(claims(), SECRET, { algorithm, subject: user.id, expiresIn: 60 }))), 'invalid_token');
    }
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ ...claims(), sub: user.id, iat: now, exp: now + 60 })}`;
    const { createHmac } = await import('node:crypto');
    const forged = `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
    expect401(await request(t.app).get('/api/users/me').set(...bearer(forged)), 'invalid_token');
  });

  it('a token of another auth collection is not a user of this one', async () => {
    const admin = (await request(t.app).post('/api/admins/register').send({ email: 'x-admin@example.com', password: 'Corr3ct-Horse!' })).body;
    expect((await request(t.app).get('/api/users/me').set(...bearer(admin.accessToken))).status).toBe(404);
    expect((await request(t.app).get(`/api/users/${user.id}`).set(...bearer(admin.accessToken))).status).toBe(404);
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: admin.refreshToken }), 'refresh_token_unknown');
  });

  it('is read only from the Authorization header: never from the query string or the body', async () => {
    for (const name of ['access_token', 'token', 'accessToken', 'api_key', 'apiKey']) {
      expect401(await request(t.app).get(`/api/users/me?${name}=${user.accessToken}`));
      expect401(await request(t.app).get(`/api/posts?${name}=${key}`));
    }
    expect401(await request(t.app).post('/api/posts').send({ title: 'x', access_token: user.accessToken }));
  });

  it('a refresh token is no access token, and an access token no refresh token', async () => {
    expect401(await request(t.app).get('/api/users/me').set(...bearer(user.refreshToken)), 'invalid_token');
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: user.accessToken }), 'refresh_token_unknown');
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: key }), 'refresh_token_unknown');
    expect401(await request(t.app).get('/api/users/me').set('X-API-Key', user.accessToken), 'invalid_api_key');
  });
});

describe('repeated headers', () => {
  // superagent sends an array value as repeated headers; its types allow arrays only for Cookie.
  const twice = (field: string, values: string[]) => (req: request.Test) => req.set(field, values as unknown as string);

  it('two Authorization headers, one of them Bearer, are refused whichever comes first', async () => {
    expect401(await twice('Authorization', [`Bearer ${user.accessToken}`, 'Bearer garbage'])(request(t.app).get('/api/users/me')));
    expect401(await twice('Authorization', ['Bearer garbage', `Bearer ${user.accessToken}`])(request(t.app).get('/api/users/me')));
  });

  it('two X-API-Key headers are refused', async () => {
    expect401(await twice('X-API-Key', [key, 'ck_other'])(request(t.app).get('/api/posts')), 'invalid_api_key');
  });
});
