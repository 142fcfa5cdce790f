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
  DatabaseDownError,
  DatabaseTimeoutError,
  DeliveryNotRetryableError,
  ForbiddenError,
  HookError,
  IdempotencyQuotaExceededError,
  MalformedBodyError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
  PreconditionRequiredError,
  QueryError,
  QueryTooComplexError,
  RangeNotSatisfiableError,
  ServiceUnavailableError,
  TooManyConnectionsError,
  TooManyMatchesError,
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
  type AfterChangeArgs,
  type AfterChangeHook,
  type AfterErrorArgs,
  type AfterErrorHook,
  type ApiRecord,
  type ArrayItemType,
  type AuthOptions,
  type AuthUser,
  type BeforeChangeArgs,
  type BeforeChangeHook,
  type BeforeValidateArgs,
  type BeforeValidateHook,
  type CacheOptions,
  type CollectionAccess,
  type CollectionAuthOptions,
  type CollectionConfig,
  type CollectionHooks,
  type ContentConfig,
  type ContentRouter,
  type DeleteHook,
  type DeleteHookArgs,
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
  type FieldAccess,
  type FieldAccessArgs,
  type FieldAccessFn,
  type FieldConfig,
  type FieldHook,
  type FieldHookArgs,
  type FieldHooks,
  type FieldType,
  type Fields,
  type FindResult,
  type GenerateTypesOptions,
  type GlobalConfig,
  type GlobalHooks,
  type HookApi,
  type HookArgs,
  type HookContext,
  type HookOperation,
  type HookRecord,
  type LocalApi,
  type LocalAuthApi,
  type LocalCountOptions,
  type LocalFindOptions,
  type LocalOptions,
  type LocalUploadOptions,
  type LoginResult,
  type MountedRoute,
  type PasswordHashOptions,
  type PasswordPolicy,
  type RateLimitAuthOptions,
  type RateLimitOptions,
  type ReadHook,
  type ReadHookArgs,
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
// Hooks and field access (docs/hooks.md): every args type, and `api` typed as the local API.
const operation: HookOperation = 'restore';
const shared: HookContext = { skipAudit: false };
const stored: HookRecord = { id: '65a1b2c3d4e5f60718293a4b', title: 'Hello' };
const editors: FieldAccessFn = ({ user }: FieldAccessArgs) => user?.role === 'editor';
const notesAccess: FieldAccess = { read: editors, create: editors, update: async () => false };
const trim: FieldHook = ({ value }: FieldHookArgs) => (typeof value === 'string' ? value.trim() : undefined);
const notesHooks: FieldHooks = { beforeChange: [trim], afterRead: [({ value, doc }: FieldHookArgs) => value ?? doc?.title] };
const slugFromTitle: BeforeValidateHook = ({ data, originalDoc }: BeforeValidateArgs) =>
  data.slug === undefined && typeof data.title === 'string' && !originalDoc ? { ...data, slug: data.title.toLowerCase() } : undefined;
const audit: AfterChangeHook = async ({ api, context, doc, operation: done, user }: AfterChangeArgs) => {
  if (context.skipAudit) return;
  const bound: HookApi = api;
  const local: LocalApi = api;
  const entry: ApiRecord = await bound.create('audit', { action: done, record: doc.id, by: user?.id ?? null }, { overrideAccess: true, context });
  // @ts-expect-error the local API's create takes the collection's slug first
  await local.create({ action: done });
  context.lastAudit = entry.id;
};
const readingTime: ReadHook = ({ doc }: ReadHookArgs) => ({ ...doc, readingTime: String(doc.body ?? '').split(/\s+/).length });
const keepPublished: DeleteHook = ({ doc, permanent }: DeleteHookArgs) => {
  if (doc.status === 'published' && !permanent) throw new ContentError(409, 'published', 'Conflict', 'Unpublish it first.');
};
const reportFailure: AfterErrorHook = ({ error, collection, req }: AfterErrorArgs) => console.error(collection, req?.path, error);
const seen: Array<(args: HookArgs) => unknown> = [({ operation: op, user }) => `${op} by ${user?.id ?? 'anyone'}`];
const postHooks: CollectionHooks = {
  beforeValidate: [slugFromTitle],
  afterChange: [audit],
  afterRead: [readingTime],
  beforeDelete: [keepPublished],
  afterDelete: [...seen],
  afterError: [reportFailure],
};
const trimTitle: BeforeChangeHook = ({ data }: BeforeChangeArgs) => ({ ...data, title: String(data.title ?? '').trim() });
const siteHooks: GlobalHooks = { beforeChange: [trimTitle] };

const posts: CollectionConfig = {
  slug: 'posts',
  fields: { ...fields, slug: { type: 'text', unique: true }, notes: { type: 'textarea', access: notesAccess, hooks: notesHooks } },
  access,
  cache,
  softDelete: true,
  search: ['title'],
  sortable: ['title'],
  hooks: postHooks,
};
const users: CollectionConfig = { slug: 'users', auth: memberAuth, fields: { bio: { type: 'text' } } };
const site: GlobalConfig = { slug: 'site', fields: { title: { type: 'text' } }, hooks: siteHooks };
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
  const countOptions: LocalCountOptions = { filter: ['title:Hello'], search: 'hello', user: null };
  const counted: { total: number } = await local.count('posts', countOptions);
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
    UnsupportedMediaTypeError, UpgradeRequiredError, WriteConflictError, TypeNameConflictError, DatabaseDownError, DeliveryNotRetryableError,
    HookError, IdempotencyQuotaExceededError, PreconditionFailedError, PreconditionRequiredError, TooManyMatchesError,
  ];
  console.log(routes.length, found.docs.length, counted.total, file.url, registered.user.email, tokens.accessToken, monitor?.stats().sse, event.type);
  console.log(declarations.length, errors.map((e) => e.status), classes.length, scopes, operation, shared, stored.id);
  await api.close();
  server.close();
}
