// Who a request is: resolved once per request and router (anonymous at once, without a promise, and not
// remembered: it is cheap and depends only on the request), and
// checked afresh, never from memory, for realtime clients whose credentials are checked again and again.
import type { Request } from 'express';
import type { AuthUser } from '../../lib/config/types';
import { authenticateFresh, requestUser, requestUserNow } from '../../lib/http/request-user';
import type { Runtime } from '../../lib/operations/runtime';

/** A runtime with one authenticator answering the next user of `users` on every call. */
function runtimeAnswering(users: Array<AuthUser | undefined>): { runtime: Runtime; calls: () => number } {
  let calls = 0;
  const runtime = {
    hooks: { authenticate: [() => users[calls++]] },
    config: { fromRequest: () => null },
  } as unknown as Runtime;
  return { runtime, calls: () => calls };
}

const ann: AuthUser = { id: 'a', collection: 'users' };
const bob: AuthUser = { id: 'b', collection: 'users' };
const request = () => ({ headers: {} }) as Request;

describe('requestUserNow / requestUser', () => {
  it('answers an anonymous request at once, without remembering it (it costs the request a property)', async () => {
    const { runtime, calls } = runtimeAnswering([undefined, undefined, undefined]);
    const req = request();
    expect(requestUserNow(runtime, req)).toBeNull();
    expect(requestUserNow(runtime, req)).toBeNull();
    await expect(requestUser(runtime, req)).resolves.toBeNull();
    expect(calls()).toBe(3);
    expect(Object.getOwnPropertySymbols(req)).toEqual([]);
  });

  it('asks the authenticators once per request for a user, and remembers a pending answer too', async () => {
    const { runtime, calls } = runtimeAnswering([ann, bob]);
    const req = request();
    expect(requestUserNow(runtime, req)).toEqual(ann);
    expect(requestUserNow(runtime, req)).toEqual(ann);
    await expect(requestUser(runtime, req)).resolves.toEqual(ann);
    expect(calls()).toBe(1);
    let answers = 0;
    const slow = { hooks: { authenticate: [() => { answers += 1; return Promise.resolve(bob); }] }, config: { fromRequest: () => null } } as unknown as Runtime;
    const other = request();
    const pending = requestUserNow(slow, other);
    expect(requestUserNow(slow, other)).toBe(pending);
    await expect(requestUser(slow, other)).resolves.toEqual(bob);
    expect(answers).toBe(1);
  });

  it('keeps each router’s answer apart on a request both see', () => {
    const first = runtimeAnswering([ann]);
    const second = runtimeAnswering([bob]);
    const req = request();
    expect(requestUserNow(first.runtime, req)).toEqual(ann);
    expect(requestUserNow(second.runtime, req)).toEqual(bob);
  });

  it('turns a bad credential thrown at once into a rejection for promise callers', async () => {
    const runtime = { hooks: { authenticate: [() => { throw new Error('bad token'); }] }, config: { fromRequest: () => null } } as unknown as Runtime;
    expect(() => requestUserNow(runtime, request())).toThrow('bad token');
    await expect(requestUser(runtime, request())).rejects.toThrow('bad token');
  });
});

describe('authenticateFresh', () => {
  it('checks again every time, even a request whose user is remembered (or a stand-in inheriting from it)', async () => {
    const { runtime, calls } = runtimeAnswering([ann, bob, undefined]);
    const req = request();
    expect(requestUserNow(runtime, req)).toEqual(ann);
    await expect(authenticateFresh(runtime, Object.create(req) as Request)).resolves.toEqual(bob);
    await expect(authenticateFresh(runtime, req)).resolves.toBeNull();
    expect(calls()).toBe(3);
  });
});
