// Every error class a host may catch or throw is exported by the package: what api.local and api.webhooks
// reject with, what contentRouter() throws (ConfigError), what afterError hooks are given (a hook's failure,
// HookError), and every answer of lib/errors.ts a host's own access function or endpoint may throw. A class
// the host can only meet unexported leaves it to match on `name` strings, which no compiler checks.
import * as pkg from '../../lib';
import * as errors from '../../lib/errors';
import { HookError } from '../../lib/operations/hooks';

const exported = new Set<unknown>(Object.values(pkg));

it('exports every error class of lib/errors.ts', () => {
  const classes = Object.entries(errors).filter(([, value]) => typeof value === 'function' && value.prototype instanceof Error);
  expect(classes.length).toBeGreaterThan(20);
  expect(classes.filter(([, value]) => !exported.has(value)).map(([name]) => name)).toEqual([]);
});

it('exports HookError, the error afterError hooks and api.local callers get for a failing hook', () => {
  expect(pkg).toHaveProperty('HookError', HookError);
});
