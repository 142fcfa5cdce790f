// Who a request is: known at once without a credential of the router's own (the host's user, or
// anonymous); otherwise checked once per request and router, and checked afresh, never from memory, for
// realtime clients whose credentials are checked again and again.
import type { Request } from 'express';
import type { AuthUser } from '../../lib/config/types';
import { authenticateFresh, callerAtOnce, requestUser } from '../../lib/http/request-user';
import type { Runtime } from '../../lib/operations/runtime';

const ann: AuthUser = { id: 'a', collection: 'users' };
const bob: AuthUser = { id: 'b', collection: 'users' };
const host: AuthUser = { id: 'h', collection: 'host' };

/** A runtime whose one authenticator owns requests with a `token` header and answers the next of `users` (or rejects). */
function runtimeAnswering(users: Array<AuthUser | Error>, hostUser: AuthUser | null = null): { runtime: Runtime; calls: () => number } {
  let calls = 0;
  const runtime = {
    hooks: {
      authenticate: [
        {
          presented: (req: Request) => req.headers.token !== undefined,
          authenticate: async () => {
            const next = users[calls++];
            if (next instanceof Error) throw next;
            return next;
          },
        },
      ],
    },
    config: { fromRequest: () => hostUser },
  } as unknown as Runtime;
  return { runtime, calls: () => calls };
}

const anonymous = () => ({ headers: {} }) as Request;
const withToken = () => ({ headers: { token: 't' } }) as unknown as Request;

describe('callerAtOnce', () => {
  it('is the host’s user (or null) without a credential, and unknown (undefined) with one', () => {
    expect(callerAtOnce(runtimeAnswering([], host).runtime, anonymous())).toEqual(host);
    expect(callerAtOnce(runtimeAnswering([]).runtime, anonymous())).toBeNull();
    expect(callerAtOnce(runtimeAnswering([ann], host).runtime, withToken())).toBeUndefined();
  });
});

describe('requestUser', () => {
  it('checks a credential once per request and shares the pending answer; the host’s user never counts then', async () => {
    const { runtime, calls } = runtimeAnswering([ann, bob], host);
    const req = withToken();
    const first = requestUser(runtime, req);
    expect(requestUser(runtime, req)).toBe(first);
    await expect(first).resolves.toEqual(ann);
    await expect(requestUser(runtime, req)).resolves.toEqual(ann);
    expect(calls()).toBe(1);
  });

  it('answers an anonymous request without asking the authenticator, and leaves the request as it was', async () => {
    const { runtime, calls } = runtimeAnswering([ann]);
    const req = anonymous();
    await expect(requestUser(runtime, req)).resolves.toBeNull();
    expect(calls()).toBe(0);
    expect(Object.getOwnPropertySymbols(req)).toEqual([]);
  });

  it('keeps each router’s answer apart on a request both see', async () => {
    const first = runtimeAnswering([ann]);
    const second = runtimeAnswering([bob]);
    const req = withToken();
    await expect(requestUser(first.runtime, req)).resolves.toEqual(ann);
    await expect(requestUser(second.runtime, req)).resolves.toEqual(bob);
  });

  it('rejects for a bad credential every time it is asked, even with a host user', async () => {
    const { runtime, calls } = runtimeAnswering([new Error('bad token')], host);
    const req = withToken();
    await expect(requestUser(runtime, req)).rejects.toThrow('bad token');
    await expect(requestUser(runtime, req)).rejects.toThrow('bad token');
    expect(calls()).toBe(1);
  });
});

describe('authenticateFresh', () => {
  it('checks again every time, even a request whose user is remembered (or a stand-in inheriting from it)', async () => {
    const { runtime, calls } = runtimeAnswering([ann, bob, ann]);
    const req = withToken();
    await expect(requestUser(runtime, req)).resolves.toEqual(ann);
    await expect(authenticateFresh(runtime, Object.create(req) as Request)).resolves.toEqual(bob);
    await expect(authenticateFresh(runtime, req)).resolves.toEqual(ann);
    expect(calls()).toBe(3);
    await expect(authenticateFresh(runtime, anonymous())).resolves.toBeNull();
  });
});
