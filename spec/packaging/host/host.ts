// A strict TypeScript host as a user writes one, compiled (never run) by spec/packaging/pack-install.spec.ts
// with skipLibCheck off and only the packages a host has: it touches every export of the package, so a
// public declaration that needs a package the host lacks fails to compile here.
import { createServer } from 'node:http';
import express, { type Request } from 'express';
import mongoose from 'mongoose';
import {
  AccountLockedError,
  ConfigError,
  ConflictError,
  ContentError,
  DatabaseTimeoutError,
  ForbiddenError,
  MalformedBodyError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  QueryError,
  QueryTooComplexError,
  RangeNotSatisfiableError,
  ServiceUnavailableError,
  TooManyConnectionsError,
  TooManyRequestsError,
  TypeNameConflictError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  UpgradeRequiredError,
  ValidationError,
  WriteConflictError,
  contentRouter,
  defineConfig,
  generateTypes,
  type AccessArgs,
  type AccessFn,
  type AccessResult,
  type ApiRecord,
  type ArrayItemType,
  type AuthOptions,
  type AuthUser,
  type CacheOptions,
  type CollectionAccess,
  type CollectionAuthOptions,
  type CollectionConfig,
  type ContentConfig,
  type ContentRouter,
  type DocsOptions,
  type EmailMessage,
  type EndpointBodyProperty,
  type EndpointBodySchema,
  type EndpointFile,
  type EndpointFunction,
  type EndpointHandlerArgs,
  type EndpointMethod,
  type EndpointObject,
  type EndpointRequestContext,
  type EndpointSchema,
  type EndpointSetupContext,
  type ErrorDetail,
  type FieldConfig,
  type FieldType,
  type Fields,
  type FindResult,
  type GenerateTypesOptions,
  type GlobalConfig,
  type LocalApi,
  type LocalAuthApi,
  type LocalFindOptions,
  type LocalOptions,
  type LocalUploadOptions,
  type LoginResult,
  type MountedRoute,
  type PasswordHashOptions,
  type PasswordPolicy,
  type RateLimitAuthOptions,
  type RateLimitOptions,
  type RealtimeApi,
  type RealtimeEvent,
  type RealtimeOptions,
  type RegisterResult,
  type Scope,
  type SecurityOptions,
  type SessionTokens,
  type UploadOptions,
  type UploadedFile,
  type Where,
} from 'content-router';

const scopes: Scope[] = ['read', 'write'];
const ownPosts: AccessFn = ({ user }: AccessArgs): AccessResult => (user ? ({ owner: { eq: user.id } } satisfies Where) : false);
const access: CollectionAccess = { read: () => true, create: ownPosts, update: ownPosts, delete: ownPosts };
const cache: CacheOptions = { ttl: 30 };
const itemType: ArrayItemType = 'text';
const fieldType: FieldType = 'text';
const title: FieldConfig = { type: fieldType, required: true, maxLength: 200 };
const fields: Fields = {
  title,
  views: { type: 'number', min: 0 },
  published: { type: 'boolean' },
  status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
  tags: { type: 'array', of: itemType },
  publishedAt: { type: 'date' },
  owner: { type: 'relationship', relationTo: 'users' },
  cover: { type: 'upload' },
  meta: { type: 'json' },
};
const memberAuth: CollectionAuthOptions = { requireVerification: false, password: { minLength: 12 } satisfies PasswordPolicy };
const posts: CollectionConfig = { slug: 'posts', fields, access, cache, softDelete: true, search: ['title'], sortable: ['title'] };
const users: CollectionConfig = { slug: 'users', auth: memberAuth, fields: { bio: { type: 'text' } } };
const site: GlobalConfig = { slug: 'site', fields: { title: { type: 'text' } } };
const passwordHash: PasswordHashOptions = { cost: 16384 };
const auth: AuthOptions = { jwtSecret: process.env.JWT_SECRET ?? 'x'.repeat(40), passwordHash, fromRequest: (req: Request): AuthUser | null => (req.header('x-user') ? { id: '65a1b2c3d4e5f60718293a4b' } : null) };
const rateLimit: RateLimitOptions = { windowMs: 60_000, max: 600, auth: { max: 10 } satisfies RateLimitAuthOptions };
const security: SecurityOptions = { rateLimit };
const uploads: UploadOptions = { maxFileSize: 5_000_000, allowedMimeTypes: ['image/png'] };
const realtime: RealtimeOptions = { heartbeatMs: 25_000 };
const docs: DocsOptions = { public: false };

const name: EndpointBodyProperty = { type: 'string', maxLength: 100 };
const body: EndpointBodySchema = { properties: { name, attachment: { type: 'file' } }, required: ['name'] };
const schema: EndpointSchema = { name: 'ContactForm', body };
const method: EndpointMethod = 'post';
const contact: EndpointObject = {
  path: '/contact',
  method,
  schema,
  handler: async ({ body: sent, user }: EndpointHandlerArgs) => {
    const file = (sent as { attachment?: EndpointFile }).attachment;
    return { ok: true, from: user?.id ?? null, bytes: file?.size ?? 0 };
  },
};
const published: EndpointFunction = (router, { logger }: EndpointSetupContext) => {
  router.get('/posts/published', async (req, res) => {
    // Importing EndpointRequestContext declares req.context on Express requests.
    const context: EndpointRequestContext | undefined = req.context;
    const page: FindResult | undefined = await context?.find('posts', { where: { status: 'published' }, limit: 5 });
    logger.info(`served ${page?.docs.length ?? 0} posts`);
    res.json(page?.docs ?? []);
  });
};

const config: ContentConfig = defineConfig({
  db: { connection: mongoose.createConnection(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/host') },
  collections: [users, posts],
  globals: [site],
  auth,
  security,
  uploads,
  realtime,
  docs,
  endpoints: [published, contact],
  email: { send: (mail: EmailMessage) => void mail.to },
});

export async function main(): Promise<void> {
  const api: ContentRouter = contentRouter(config);
  const app = express();
  app.use('/api', api);
  const server = createServer(app);
  api.attach(server);
  await api.ready;

  const routes: readonly MountedRoute[] = api.routes;
  const local: LocalApi = api.local;
  const options: LocalFindOptions & LocalOptions = { where: { title: { like: 'hello' } }, user: null, overrideAccess: false };
  const found: FindResult = await local.find('posts', options);
  const record: ApiRecord = await local.create('posts', { title: 'Hello' });
  const upload: LocalUploadOptions = { filename: 'a.png', mimeType: 'image/png' };
  const file: UploadedFile = await local.upload(new Uint8Array([137, 80, 78, 71]), upload);

  const accounts: LocalAuthApi = api.auth;
  const registered: RegisterResult = await accounts.register('ann@example.com', 'Corr3ct-Horse-Battery!', 'Ann');
  const session: LoginResult = await accounts.login('ann@example.com', 'Corr3ct-Horse-Battery!');
  const tokens: SessionTokens = session;
  const monitor: RealtimeApi | undefined = api.realtime;
  const event: RealtimeEvent = { id: '1', type: 'create', collection: 'posts', docId: record.id, doc: record, timestamp: new Date().toISOString() };

  const source: GenerateTypesOptions = { source: 'host.ts' };
  const declarations: string = generateTypes(config, source);
  const errors: ContentError[] = [
    new NotFoundError(),
    new UnauthorizedError(),
    new ForbiddenError('no'),
    new ValidationError('bad', [{ field: 'title', message: 'is required', code: 'required' } satisfies ErrorDetail]),
    new ConflictError('taken'),
  ];
  const classes = [
    AccountLockedError, ConfigError, DatabaseTimeoutError, MalformedBodyError, MethodNotAllowedError, PayloadTooLargeError, QueryError,
    QueryTooComplexError, RangeNotSatisfiableError, ServiceUnavailableError, TooManyConnectionsError, TooManyRequestsError,
    UnsupportedMediaTypeError, UpgradeRequiredError, WriteConflictError, TypeNameConflictError,
  ];
  console.log(routes.length, found.docs.length, file.url, registered.user.email, tokens.accessToken, monitor?.stats().sse, event.type);
  console.log(declarations.length, errors.map((e) => e.status), classes.length, scopes);
  await api.close();
  server.close();
}
