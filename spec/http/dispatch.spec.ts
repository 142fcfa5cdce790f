// The dispatcher alone: route collisions are refused at start-up, naming both routes; upgrades match their path exactly.
import { ConfigError } from '../../lib';
import { createDispatcher } from '../../lib/http/dispatch';
import { createLifecycle } from '../../lib/http/lifecycle';
import type { RouteDef } from '../../lib/http/route-table';

const route = (method: RouteDef['method'], path: string, operationId: string): RouteDef => ({
  method,
  path,
  operationId,
  summary: operationId,
  tags: [],
  auth: 'none',
  responses: { 200: { description: 'ok' } },
  handler: () => undefined,
});

describe('createDispatcher', () => {
  it('refuses two routes with the same method and path shape, naming both', () => {
    let error: unknown;
    try {
      createDispatcher([route('get', '/posts/:id', 'posts.get'), route('get', '/posts/:slug', 'custom.bySlug')], createLifecycle());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(['route GET /posts/:slug (custom.bySlug) collides with GET /posts/:id (posts.get)']);
  });

  it('lets a route that only explains an absence (undocumented) give way to another route at its method and path', () => {
    const explains = { ...route('get', '/posts/:id/draft', 'posts.draft.get'), undocumented: true as const };
    const dispatcher = createDispatcher([explains, route('get', '/posts/:postId/draft', 'custom.draft'), route('patch', '/posts/:id/draft', 'posts.draft.patch')], createLifecycle());
    expect(dispatcher.routes.map((r) => `${r.method} ${r.operationId}`)).toEqual(['GET custom.draft', 'PATCH posts.draft.patch']);
  });

  it('refuses two routes with the same operationId', () => {
    let error: unknown;
    try {
      createDispatcher([route('get', '/posts', 'posts.list'), route('get', '/articles', 'posts.list')], createLifecycle());
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual(['route GET /articles reuses the operationId "posts.list" of GET /posts']);
  });

  it('lists what it compiled as routes', () => {
    const dispatcher = createDispatcher([route('get', '/posts/:id', 'a'), route('patch', '/posts/:id', 'b')], createLifecycle());
    expect(dispatcher.routes).toEqual([
      { method: 'GET', path: '/posts/:id', operationId: 'a' },
      { method: 'PATCH', path: '/posts/:id', operationId: 'b' },
    ]);
  });

  it('lists no undocumented route (one that only explains a 404), and lets any route of its method and path take its place', () => {
    const explains = { ...route('get', '/plain/:id/versions', 'plain.versions.list'), undocumented: true };
    const custom = route('get', '/plain/:key/versions', 'custom.versions');
    expect(createDispatcher([explains], createLifecycle()).routes).toEqual([]);
    expect(createDispatcher([explains, custom], createLifecycle()).routes).toEqual([{ method: 'GET', path: '/plain/:key/versions', operationId: 'custom.versions' }]);
  });

  it('accepts the same path with different methods', () => {
    expect(() => createDispatcher([route('get', '/posts/:id', 'a'), route('patch', '/posts/:id', 'b')], createLifecycle())).not.toThrow();
  });
});

describe('matchUpgrade', () => {
  const upgrade = async () => undefined;
  const dispatcher = createDispatcher(
    [{ ...route('get', '/ws', 'ws'), upgrade }, { ...route('get', '/rooms/:id', 'room'), upgrade }, route('get', '/posts', 'posts.list')],
    createLifecycle(),
  );

  it('finds the GET route taking upgrades at the path, with its parameters', () => {
    expect(dispatcher.matchUpgrade('/ws')?.route.operationId).toBe('ws');
    expect(dispatcher.matchUpgrade('/rooms/a%20b')?.params).toEqual({ id: 'a b' });
  });

  it.each(['/ws/', '//ws', '/ws//', 'ws', '/rooms//a', '/rooms/a/', '/rooms/', '/posts', '/rooms/%zz'])('finds nothing at %s', (path) => {
    expect(dispatcher.matchUpgrade(path)).toBeUndefined();
  });
});
