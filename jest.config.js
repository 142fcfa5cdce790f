// Jest: ts-jest over spec/ in two projects, `unit` (no database) and `integration` (one real
// MongoDB server for the whole run, see spec/setup/); `npm run test:unit` runs only the first.

// Spec files (under spec/) that never open a connection. Everything else is integration, so a new
// spec needs MongoDB until someone checks it does not and lists it here.
const UNIT = [
  'query/',
  'config/',
  'schema/',
  'auth/access-token.spec.ts',
  'auth/auth-config.spec.ts',
  'auth/auth-emails.spec.ts',
  'auth/password-hash.spec.ts',
  'auth/password-policy.spec.ts',
  'auth/read-credential.spec.ts',
  'http/to-problem.spec.ts',
  'http/dispatch.spec.ts',
  'rest/query-memo.spec.ts',
  'http/request-user.spec.ts',
  'http/deadlines.spec.ts',
  'operations/outage-log.spec.ts',
  'operations/access-where-memo.spec.ts',
  'versions/transactions-only-where-recorded.spec.ts',
  'http/request-lifecycle.spec.ts',
  'http/request-state.spec.ts',
  'auth/verified-tokens.spec.ts',
  'rate-limit/rate-limit-config.spec.ts',
  'idempotency/idempotency-config.spec.ts',
  'audit/audit-config.spec.ts',
  'webhooks/webhook-config.spec.ts',
  'webhooks/endpoint-url-credentials.spec.ts',
  'webhooks/delivery-queue.spec.ts',
  'webhooks/undeliverable-endpoint-config.spec.ts',
  'webhooks/delivery-send-limits.spec.ts',
  'openapi/build-document.spec.ts',
  'openapi/workflow-shapes.spec.ts',
  'openapi/docs-options.spec.ts',
  'util/',
  'audit/audit-event-entry.spec.ts',
  'cache/invalidation.spec.ts',
  'changes/echo-filter.spec.ts',
  'changes/collection-watcher.spec.ts',
  'changes/normalize-change.spec.ts',
  'realtime/event-hub.spec.ts',
  'realtime/sse-frame.spec.ts',
  'realtime/realtime-options.spec.ts',
  'realtime/hub-feed.spec.ts',
  'realtime/connection-limit.spec.ts',
  'realtime/reader-view.spec.ts',
  'uploads/upload-options.spec.ts',
  'uploads/mime-policy.spec.ts',
  'uploads/file-names.spec.ts',
  'packaging/runtime-engines.spec.ts',
  'packaging/import-layers.spec.ts',
  'packaging/public-errors.spec.ts',
  'types-gen/',
  'endpoints/validate-endpoints.spec.ts',
  'endpoints/validate-body.spec.ts',
  'endpoints/endpoint-routes.spec.ts',
  'mcp/mcp-config.spec.ts',
];

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const shared = {
  rootDir: __dirname,
  roots: ['<rootDir>/spec'],
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // The example app requires the package by name (as users do); under jest that is lib/, unbuilt.
  moduleNameMapper: { '^content-router$': '<rootDir>/lib/index.ts' },
};

module.exports = {
  maxWorkers: 2,
  // A global option: jest ignores it inside a project, where it would leave the 5 s default.
  testTimeout: 30000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: UNIT.map((p) => (p.endsWith('/') ? `<rootDir>/spec/${p}**/*.spec.ts` : `<rootDir>/spec/${p}`)),
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/spec/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...UNIT.map((p) => `/spec/${escapeRegExp(p)}${p.endsWith('/') ? '' : '$'}`)],
      // Per project, not top level: jest runs a project's global hooks only when one of its tests
      // is selected, so `--selectProjects unit` (or a unit spec path) needs no server.
      globalSetup: '<rootDir>/spec/setup/global-setup.js',
      globalTeardown: '<rootDir>/spec/setup/global-teardown.js',
    },
  ],
};
