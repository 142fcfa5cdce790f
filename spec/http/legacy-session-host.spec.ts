// A legacy host: Express 4, express-session cookies and passport-local, the router mounted behind the host's
// own login. passport's deserializeUser hands over a hydrated Mongoose document, as its tutorials do. The
// router must honour that user (its role), keep its password hash from rules and hooks, and refuse writes
// that another site makes with the session cookie (a browser sends it by itself).
import express, { type NextFunction, type Request, type Response } from 'express';
import session from 'express-session';
import mongoose, { type Connection } from 'mongoose';
import { Passport } from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import request from 'supertest';
import { type AuthUser, type ContentRouter, contentRouter } from '../../lib';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';

// Every `express` the package and this host import is Express 4 here.
jest.mock('express', () => jest.requireActual('express4'));

const HOST = 'legacy.example';
const seen: AuthUser[] = [];
let connection: Connection;
let api: ContentRouter;
let app: express.Express;
const hostErrors: unknown[] = [];

interface Account {
  email: string;
  role: string;
  passwordHash: string;
}

beforeAll(async () => {
  connection = await openTestConnection();
  const Accounts = connection.model<Account>('Account', new mongoose.Schema<Account>({ email: String, role: String, passwordHash: String }));
  await Accounts.create([
    { email: 'ed@example.com', role: 'editor', passwordHash: 'hashed:ed-pw' },
    { email: 'ada@example.com', role: 'admin', passwordHash: 'hashed:ada-pw' },
    { email: 'rea@example.com', role: 'reader', passwordHash: 'hashed:rea-pw' },
  ]);
  const passport = new Passport();
  passport.use(
    new LocalStrategy({ usernameField: 'email' }, (email, password, done) => {
      Accounts.findOne({ email }).then((account) => done(null, account && account.passwordHash === `hashed:${password}` ? account : false), done);
    }),
  );
  passport.serializeUser((account, done) => done(null, String((account as { _id: unknown })._id)));
  // Hydrated, as the tutorials have it: the router gets a Mongoose document on req.user.
  passport.deserializeUser((id: string, done) => {
    Accounts.findById(id).then((account) => done(null, account), done);
  });

  const remember = ({ user }: { user: AuthUser | null }) => {
    if (user) seen.push(user);
  };
  api = contentRouter({
    db: { connection },
    logger: { error: () => undefined, warn: () => undefined },
    collections: [
      {
        slug: 'notes',
        fields: { title: { type: 'text', required: true } },
        access: {
          read: () => true,
          create: ({ user }) => user?.role === 'editor' || user?.role === 'admin',
          update: ({ user }) => user?.role === 'editor' || user?.role === 'admin',
          delete: ({ user }) => user?.role === 'admin',
        },
        hooks: { beforeChange: [(args) => void remember(args)] },
      },
    ],
    globals: [{ slug: 'site', fields: { title: { type: 'text' } }, access: { read: () => true, update: ({ user }) => user?.role === 'admin' } }],
    uploads: {},
    security: { trustedOrigins: ['https://admin.legacy.example'] },
  });
  await api.ready;

  app = express();
  app.use(session({ secret: 'legacy-session-secret', resave: false, saveUninitialized: false }));
  app.use(passport.initialize());
  app.use(passport.session());
  app.post('/login', express.urlencoded({ extended: false }), passport.authenticate('local'), (_req, res) => void res.json({ ok: true }));
  app.use('/api', api);
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    hostErrors.push(error);
    res.status(599).end();
  });
});

afterAll(async () => {
  await api.close();
  await closeTestConnection(connection);
});
afterEach(() => expect(hostErrors).toEqual([]));

/** The session cookie of a logged-in account. */
async function login(email: string, password: string): Promise<string> {
  const res = await request(app).post('/login').set('Host', HOST).type('form').send({ email, password }).expect(200);
  return String(res.headers['set-cookie'][0]).split(';')[0];
}

it('is really running on Express 4', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module the mock of express resolves to, asked at run time
  expect(require('express')).toBe(jest.requireActual('express4'));
});

describe("the host's session user", () => {
  it('keeps its role when passport hands over a hydrated Mongoose document: an editor writes, an admin is an admin', async () => {
    const ed = await login('ed@example.com', 'ed-pw');
    const created = await request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).send({ title: 'By Ed' });
    expect(created.status).toBe(201);
    expect((await request(app).delete(`/api/notes/${created.body.id}`).set('Host', HOST).set('Cookie', ed)).status).toBe(403);
    const ada = await login('ada@example.com', 'ada-pw');
    expect((await request(app).patch('/api/globals/site').set('Host', HOST).set('Cookie', ada).send({ title: 'Legacy' })).status).toBe(200);
    expect((await request(app).delete(`/api/notes/${created.body.id}`).set('Host', HOST).set('Cookie', ada)).status).toBe(200);
    const rea = await login('rea@example.com', 'rea-pw');
    expect((await request(app).post('/api/notes').set('Host', HOST).set('Cookie', rea).send({ title: 'No' })).status).toBe(403);
  });

  it('reaches access rules and hooks as a plain object with a string id and without its password hash', async () => {
    seen.length = 0;
    const ed = await login('ed@example.com', 'ed-pw');
    await request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).send({ title: 'Seen' }).expect(201);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ email: 'ed@example.com', role: 'editor' });
    expect(typeof seen[0].id).toBe('string');
    expect(seen[0]).not.toHaveProperty('passwordHash');
    expect(seen[0]).not.toHaveProperty('$__');
  });
});

describe('writes from another site carrying the session cookie', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it('refuses a cross-site multipart upload (403 cross_origin_request) and stores nothing', async () => {
    const ed = await login('ed@example.com', 'ed-pw');
    const res = await request(app)
      .post('/api/upload')
      .set('Host', HOST)
      .set('Cookie', ed)
      .set('Origin', 'https://evil.example')
      .set('Sec-Fetch-Site', 'cross-site')
      .attach('file', png, { filename: 'x.png', contentType: 'image/png' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('cross_origin_request');
    expect(await connection.collection('uploads.files').countDocuments()).toBe(0);
  });

  it('refuses a cross-site form-encoded write and a same-site one; a trusted origin passes', async () => {
    const ed = await login('ed@example.com', 'ed-pw');
    const from = (site: string, origin: string) => request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).set('Sec-Fetch-Site', site).set('Origin', origin);
    expect((await from('cross-site', 'https://evil.example').send({ title: 'x' })).body.code).toBe('cross_origin_request');
    expect((await from('same-site', 'https://blog.legacy.example').send({ title: 'x' })).status).toBe(403);
    expect((await from('same-site', 'https://admin.legacy.example').send({ title: 'trusted' })).status).toBe(201);
  });

  it('lets the same origin write, and a request without Sec-Fetch-Site or Origin (a non-browser client)', async () => {
    const ed = await login('ed@example.com', 'ed-pw');
    const upload = await request(app)
      .post('/api/upload')
      .set('Host', HOST)
      .set('Cookie', ed)
      .set('Origin', `http://${HOST}`)
      .set('Sec-Fetch-Site', 'same-origin')
      .attach('file', png, { filename: 'ok.png', contentType: 'image/png' });
    expect(upload.status).toBe(201);
    expect((await request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).send({ title: 'curl' })).status).toBe(201);
    // An older browser without Sec-Fetch-Site: the Origin is compared with the host and protocol.
    expect((await request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).set('Origin', `http://${HOST}`).send({ title: 'old' })).status).toBe(201);
    expect((await request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).set('Origin', `https://${HOST}`).send({ title: 'tls?' })).status).toBe(403);
    expect((await request(app).post('/api/notes').set('Host', HOST).set('Cookie', ed).set('Origin', 'https://evil.example').send({ title: 'old' })).status).toBe(403);
  });

  it('lets every read through, cross-site or not', async () => {
    const ed = await login('ed@example.com', 'ed-pw');
    const res = await request(app).get('/api/notes').set('Host', HOST).set('Cookie', ed).set('Origin', 'https://evil.example').set('Sec-Fetch-Site', 'cross-site');
    expect(res.status).toBe(200);
  });
});
