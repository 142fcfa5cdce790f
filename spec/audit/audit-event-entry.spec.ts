// An audit event as the entry the audit log stores: who acted (user, API key, host user, the router's own
// flow, nobody), the request without its query string, and nothing of a value: only ids, names and kinds.
import type { Request } from 'express';
import { auditActor } from '../../lib/audit/audit-actor';
import { entryOfEvent } from '../../lib/audit/event-entry';
import { auditRequest } from '../../lib/audit/request-info';
import type { AuditEvent } from '../../lib/operations/audit-events';

const at = new Date('2026-01-02T03:04:05.000Z');

function request(overrides: Partial<Request> = {}): Request {
  const req = {
    method: 'POST',
    originalUrl: '/api/users/login?token=secret-in-query',
    url: '/users/login?token=secret-in-query',
    ip: '203.0.113.7',
    headers: { 'user-agent': 'spec-agent/1.0', authorization: 'Bearer secret-token', 'x-api-key': 'ck_secret' },
    body: { password: 'hunter2-secret' },
    ...overrides,
  } as unknown as Request;
  // As Express answers it: a header by name, any case.
  req.header = ((name: string) => req.headers[name.toLowerCase()]) as Request['header'];
  return req;
}

describe('auditActor', () => {
  it('names a user of an auth collection by id and collection, and nothing else of it', () => {
    expect(auditActor({ id: 'u1', collection: 'users', email: 'a@example.com', role: 'admin', password: 'x' })).toEqual({ type: 'user', id: 'u1', collection: 'users' });
  });

  it('names an API key by its id and scopes, with its owner', () => {
    expect(auditActor({ id: 'u1', collection: 'users', scopes: ['read', 'write'], apiKeyId: 'k1' })).toEqual({ type: 'apiKey', id: 'u1', collection: 'users', apiKeyId: 'k1', scopes: ['read', 'write'] });
  });

  it("names the host's own user (no auth collection) as host", () => {
    expect(auditActor({ id: '42', name: 'Host Person' })).toEqual({ type: 'host', id: '42' });
  });

  it("names the router's own flow as system, by its name", () => {
    expect(auditActor({ kind: 'system', name: 'auth.reset-password' })).toEqual({ type: 'system', name: 'auth.reset-password' });
  });

  it('names nobody as anonymous', () => {
    expect(auditActor(null)).toEqual({ type: 'anonymous' });
  });
});

describe('auditRequest', () => {
  it('keeps method, path without its query string, address and user agent, never a header or the body', () => {
    expect(auditRequest(request({ headers: { ...request().headers, 'x-request-id': 'req-1' } }), undefined)).toEqual({ id: 'req-1', method: 'POST', path: '/api/users/login', ip: '203.0.113.7', userAgent: 'spec-agent/1.0', origin: 'rest' });
  });

  it('cuts a long user agent', () => {
    const info = auditRequest(request({ headers: { 'user-agent': 'a'.repeat(2000) } }), undefined);
    expect(info.userAgent?.length).toBeLessThan(2000);
  });

  it('is local without a request, and keeps a known origin (a system flow name counts as where the request came from)', () => {
    expect(auditRequest(undefined, undefined)).toEqual({ origin: 'local' });
    expect(auditRequest(undefined, 'schedule')).toEqual({ origin: 'schedule' });
    expect(auditRequest(request(), 'auth.login').origin).toBe('rest');
    expect(auditRequest(undefined, 'auth.login').origin).toBe('local');
  });
});

describe('entryOfEvent', () => {
  it('maps an account event: action, actor, resource, outcome and request', () => {
    const event: AuditEvent = { action: 'login', actor: { id: 'u1', collection: 'users' }, resource: { collection: 'users', id: 'u1' }, outcome: { status: 200 }, req: request() };
    expect(entryOfEvent(event, at)).toEqual({
      at,
      action: 'login',
      actor: { type: 'user', id: 'u1', collection: 'users' },
      resource: { collection: 'users', id: 'u1' },
      outcome: { status: 200 },
      request: { id: expect.any(String), method: 'POST', path: '/api/users/login', ip: '203.0.113.7', userAgent: 'spec-agent/1.0', origin: 'rest' },
    });
  });

  it('records a refused write as the write it was, with the refusal as its outcome', () => {
    const event: AuditEvent = { action: 'refused', refusedAction: 'update', actor: null, resource: { collection: 'posts', id: 'p1' }, changedFields: ['title'], outcome: { status: 403, code: 'forbidden' }, origin: 'local' };
    expect(entryOfEvent(event, at)).toEqual({
      at,
      action: 'update',
      actor: { type: 'anonymous' },
      resource: { collection: 'posts', id: 'p1' },
      changedFields: ['title'],
      outcome: { status: 403, code: 'forbidden' },
      request: { origin: 'local' },
    });
  });

  it('names a global by its slug, and leaves out empty changed fields', () => {
    const event: AuditEvent = { action: 'refused', refusedAction: 'update', actor: null, resource: { global: 'settings' }, changedFields: [], outcome: { status: 412 } };
    const entry = entryOfEvent(event, at);
    expect(entry.resource).toEqual({ global: 'settings' });
    expect(entry).not.toHaveProperty('changedFields');
  });

  it('carries no value of the request: no token, key, password or query string anywhere in the entry', () => {
    const event: AuditEvent = { action: 'login.failed', actor: null, resource: { collection: 'users' }, outcome: { status: 401, code: 'invalid_credentials' }, req: request() };
    const text = JSON.stringify(entryOfEvent(event, at));
    for (const secret of ['secret-in-query', 'secret-token', 'ck_secret', 'hunter2-secret', 'token=']) expect(text).not.toContain(secret);
  });
});
