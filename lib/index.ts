// The public API of content-router: the factory, the config helper, the types a host writes
// config and handlers against, and the error classes it may throw from its own access functions.

/** Build the router from a config: `app.use('/api', contentRouter(config))`. */
export { contentRouter, type ContentRouter } from './content-router';
/** Type-checked identity for config files. */
export { defineConfig } from './config/define-config';
/** Config and user types. */
export type {
  AccessArgs,
  AccessFn,
  AccessResult,
  ArrayItemType,
  AuthUser,
  CollectionAccess,
  CollectionConfig,
  ComputedFieldConfig,
  ContentConfig,
  EndpointBodyProperty,
  EndpointBodySchema,
  EndpointFile,
  DocsOptions,
  SecurityScheme,
  SecuritySchemeFlow,
  EndpointFunction,
  EndpointHandlerArgs,
  EndpointMethod,
  EndpointObject,
  EndpointSchema,
  EndpointSetupContext,
  FieldConfig,
  FieldType,
  Fields,
  GlobalConfig,
  Scope,
  SystemActor,
  UploadOptions,
  WarningOptions,
  Where,
} from './config/types';
/** Hooks and field access: what hooks receive and return, and field rules (docs/hooks.md). */
export type {
  AfterChangeArgs,
  AfterChangeHook,
  AfterErrorArgs,
  AfterErrorHook,
  BeforeChangeArgs,
  BeforeChangeHook,
  BeforeValidateArgs,
  BeforeValidateHook,
  CollectionHooks,
  DeleteHook,
  DeleteHookArgs,
  FieldAccess,
  FieldAccessArgs,
  FieldAccessFn,
  FieldHook,
  FieldHookArgs,
  FieldHooks,
  GlobalHooks,
  HookApi,
  HookArgs,
  HookContext,
  HookOperation,
  HookRecord,
  ReadHook,
  ReadHookArgs,
} from './config/hooks';
/** Auth options and the local auth API (docs/auth.md). */
export type { AuthOptions, CollectionAuthOptions, EmailMessage, PasswordHashOptions, PasswordPolicy } from './config/types';
/** Rate limiting options (docs/rate-limit.md). */
export type { RateLimitAuthOptions, RateLimitOptions, SecurityOptions } from './config/types';
/** Idempotent retries with the Idempotency-Key header (docs/writes.md). */
export type { IdempotencyOptions } from './config/types';
/** Where the router reads the current time (`clock`), and its default. */
export type { Clock } from './util/clock';
export { systemClock } from './util/clock';
/** Webhooks: options, and the delivery log of api.webhooks (docs/webhooks.md). */
export type { WebhookEndpoint, WebhookRetryOptions, WebhookView, WebhooksOptions } from './config/types';
// Also what declares api.webhooks on ContentRouter (RouterMembers), for the host's compiler.
export type { WebhookAttempt, WebhookDelivery, WebhookDeliveryPage, WebhookDeliveryQuery } from './webhooks/delivery-log';
export type { WebhooksApi } from './webhooks/webhooks-feature';
/** The audit log: options, entries, and api.audit (docs/audit.md). */
// The schema as one caller sees it: GET /schema and api.local.schema().
export type { CallerSchema, CollectionPermissions, GlobalPermissions, Permission, SchemaCollection, SchemaField, SchemaGlobal } from './config/caller-schema';

export type { AuditOptions, AuditReadRule } from './config/types';
export type { AuditAction, AuditActor, AuditEntry } from './config/audit-entry';
// Also what declares api.audit on ContentRouter (RouterMembers), for the host's compiler.
export type { AuditApi, AuditFindOptions } from './audit/audit-feature';
export type { AuditPage } from './audit/audit-query';
/** Response caching of a collection (docs/cache.md). */
export type { CacheOptions } from './config/types';
// Also what declares api.auth on ContentRouter (RouterMembers), for the host's compiler.
export type { LocalAuthApi } from './auth/local-auth';
export type { LoginResult } from './auth/login';
export type { RegisterResult } from './auth/register';
export type { SessionTokens } from './auth/session-tokens';
/** `req.context` inside custom endpoint handlers (docs/endpoints.md); importing it declares `req.context` on Express requests. */
export type { EndpointRequestContext } from './endpoints/request-context';
/** The TypeScript generator behind `content-router generate:types` (docs/types.md): config in, source text out. */
export { generateTypes, type GenerateTypesOptions, TypeNameConflictError } from './types-gen/generate-types';
/** What the router serves (api.routes). */
export type { MountedRoute } from './http/dispatch';
/** Shapes returned by the local API and the REST list. */
export type { ApiRecord } from './schema/to-record';
export type { FindResult } from './operations/find-result';
export type { LocalApi, LocalCountOptions, LocalFindOptions, LocalOptions, LocalUploadOptions, UploadedFile } from './local/local-api';
/** Working copies through the local API (docs/versions.md#drafts): what its draft members answer. */
export type { DraftPage, DraftRecord, DraftStatus, DraftsLocalApi, GlobalDraft } from './local/draft-api';
/** Preview links through the local API (docs/versions.md#preview-links): what createPreview answers. */
export type { PreviewLink, PreviewLinkOptions, PreviewLocalApi } from './local/preview-api';
/** Errors: throw one from an access function or endpoint to answer with its status. */
export {
  ConfigError,
  ConflictError,
  ContentError,
  type ErrorDetail,
  AccountLockedError,
  ForbiddenError,
  CrossOriginRequestError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
  InvalidHeaderError,
  MalformedBodyError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  QueryError,
  QueryTooComplexError,
  RangeNotSatisfiableError,
  RequestAbortedError,
  ServiceUnavailableError,
  DatabaseTimeoutError,
  TooManyRequestsError,
  TooManyConnectionsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  UpgradeRequiredError,
  ValidationError,
  WriteConflictError,
  ItemsFailedError,
} from './errors';
// What api.webhooks.retry rejects with for a delivery whose body could not be built.
export { DeliveryNotRetryableError } from './errors';
// What api.local.updateMany/deleteMany reject with for a where matching more than core.api.maxBulk records.
export { TooManyMatchesError } from './errors';
// What api.local's writes reject with for an ifMatch naming no current version; a host's endpoint may require one.
export { PreconditionFailedError, PreconditionRequiredError } from './errors';
// The router's own 429 and 503 answers, for a host's endpoint answering the same way (and matching them by class).
export { DatabaseDownError, IdempotencyQuotaExceededError } from './errors';
// Publishing and scheduled publishing (docs/versions.md): the local API's shapes, api.schedules, and what cancelling a finished action rejects with.
export type { ScheduleAction, ScheduleInput, ScheduleStatus, ScheduleTarget, ScheduledAction } from './local/publish-api';
export type { SchedulesApi } from './scheduling/scheduling-feature';
export { ScheduleNotPendingError } from './errors';
// What api.local rejects with and afterError hooks are given when a hook fails: its message names the hook.
export { HookError } from './operations/hooks';
/** Realtime options and the event clients receive (docs/realtime.md). */
export type { RealtimeOptions } from './config/types';
export type { RealtimeEvent } from './realtime/realtime-event';
// Also what declares api.realtime on ContentRouter (RouterMembers), for the host's compiler.
export type { RealtimeApi } from './realtime/realtime-feature';
