// The `webhooks` option: each mistake is a ConfigError naming its path (a bad URL, an unknown event, a bad
// secret, a where on an unknown or hidden field, unknown keys, bad delays, timeout or retention), all at once
// through contentRouter() too; the defaults and the event rules resolve as documented.
import { randomBytes } from 'node:crypto';
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';
import { parseWebhooksOptions } from '../../lib/webhooks/webhook-options';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const collections: ContentConfig['collections'] = [
  { slug: 'posts', fields: { title: { type: 'text' }, views: { type: 'number' }, note: { type: 'text', hidden: true } } },
  { slug: 'tags', fields: { name: { type: 'text' } } },
];
const endpoint = { url: 'https://example.com/hooks', secret, events: ['posts.create'] };

function problems(webhooks: unknown, more: Partial<ContentConfig> = {}): string[] {
  return validateConfig({ db, collections, ...more, webhooks } as ContentConfig, [parseWebhooksOptions]);
}

describe('webhooks config', () => {
  it.each<[string, unknown]>([
    ['one endpoint', { endpoints: [endpoint] }],
    ['every event form', { endpoints: [{ ...endpoint, events: ['posts.create', 'posts.update', 'posts.delete', 'tags.*', '*'] }] }],
    ['a where on a visible field', { endpoints: [{ ...endpoint, events: ['posts.*'], where: { views: { gt: 10 } } }] }],
    ['extra headers', { endpoints: [{ ...endpoint, headers: { Authorization: 'Bearer x', 'X-Tenant': 'a' } }] }],
    ['delays, timeout and retention', { endpoints: [endpoint], retry: { delays: [1000, 60_000] }, timeoutMs: 5000, retention: '7d' }],
    ['no retries', { endpoints: [endpoint], retry: { delays: [] }, retention: 60 }],
    ['an http URL', { endpoints: [{ ...endpoint, url: 'http://127.0.0.1:9000/in' }] }],
    ['a view of a user', { endpoints: [{ ...endpoint, view: { user: { id: 'svc-search', role: 'reader' } } }] }],
    ['a view of some fields', { endpoints: [{ ...endpoint, events: ['posts.*'], view: { fields: ['title', 'views'] } }] }],
    ['a view of a user and some fields', { endpoints: [{ ...endpoint, view: { user: { id: 'u1' }, fields: ['title'] } }] }],
  ])('accepts %s', (_name, webhooks) => {
    expect(problems(webhooks)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', true, 'webhooks: must be an object'],
    ['no endpoints', { endpoints: [] }, 'webhooks.endpoints: must be a non-empty array'],
    ['an unknown option', { endpoints: [endpoint], retries: 3 }, 'webhooks.retries: unknown option'],
    ['an unknown endpoint option', { endpoints: [{ ...endpoint, method: 'PUT' }] }, 'webhooks.endpoints[0].method: unknown option'],
    ['an endpoint that is not an object', { endpoints: ['https://example.com'] }, 'webhooks.endpoints[0]: must be an object'],
    ['no URL', { endpoints: [{ ...endpoint, url: undefined }] }, 'webhooks.endpoints[0].url: required'],
    ['a URL that is none', { endpoints: [{ ...endpoint, url: 'example.com/hooks' }] }, 'webhooks.endpoints[0].url: "example.com/hooks" is not a URL'],
    ['a URL of another scheme', { endpoints: [{ ...endpoint, url: 'ftp://example.com/in' }] }, 'webhooks.endpoints[0].url: must be an http: or https: URL (got ftp:)'],
    ['a URL listed twice', { endpoints: [endpoint, { ...endpoint, events: ['tags.*'] }] }, 'webhooks.endpoints[1].url: "https://example.com/hooks" is listed twice'],
    ['a secret without its prefix', { endpoints: [{ ...endpoint, secret: secret.slice(6) }] }, 'webhooks.endpoints[0].secret: must be "whsec_" followed by the base64 of at least 24'],
    ['a secret too short', { endpoints: [{ ...endpoint, secret: `whsec_${randomBytes(16).toString('base64')}` }] }, 'webhooks.endpoints[0].secret: must be'],
    ['a secret that is not base64', { endpoints: [{ ...endpoint, secret: 'whsec_this is not base64 at all, is it?!' }] }, 'webhooks.endpoints[0].secret: must be'],
    ['no events', { endpoints: [{ ...endpoint, events: [] }] }, 'webhooks.endpoints[0].events: must be a non-empty array'],
    ['an event of no form', { endpoints: [{ ...endpoint, events: ['posts.created'] }] }, 'webhooks.endpoints[0].events[0]: "posts.created" is not an event name'],
    ['an event of an unknown collection', { endpoints: [{ ...endpoint, events: ['pages.create'] }] }, 'webhooks.endpoints[0].events[0]: "pages" is not a collection'],
    ['a where on an unknown field', { endpoints: [{ ...endpoint, where: { colour: { eq: 'red' } } }] }, 'webhooks.endpoints[0].where.colour: unknown field'],
    ['a where on a hidden field', { endpoints: [{ ...endpoint, where: { note: { eq: 'x' } } }] }, 'webhooks.endpoints[0].where.note: unknown field'],
    ['a where with a value of the wrong type', { endpoints: [{ ...endpoint, where: { views: { gt: 'many' } } }] }, 'webhooks.endpoints[0].where.views.gt:'],
    ['a where with explicit deletes', { endpoints: [{ ...endpoint, events: ['posts.delete'], where: { views: { gt: 1 } } }] }, 'webhooks.endpoints[0].where: a delete leaves no record'],
    ['a view that is not an object', { endpoints: [{ ...endpoint, view: 'reader' }] }, 'webhooks.endpoints[0].view: must be an object { user?, fields? }'],
    ['an empty view', { endpoints: [{ ...endpoint, view: {} }] }, 'webhooks.endpoints[0].view: must name a user, fields, or both'],
    ['an unknown view option', { endpoints: [{ ...endpoint, view: { user: { id: 'u1' }, role: 'admin' } }] }, 'webhooks.endpoints[0].view.role: unknown option'],
    ['a view user without an id', { endpoints: [{ ...endpoint, view: { user: { role: 'reader' } } }] }, 'webhooks.endpoints[0].view.user: must be a user object with a non-empty string id'],
    ['view fields that are not a list', { endpoints: [{ ...endpoint, view: { fields: 'title' } }] }, 'webhooks.endpoints[0].view.fields: must be a non-empty array of field names'],
    ['a view of an unknown field', { endpoints: [{ ...endpoint, view: { fields: ['title', 'colour'] } }] }, 'webhooks.endpoints[0].view.fields[1]: unknown field "colour"'],
    ['a view of a hidden field', { endpoints: [{ ...endpoint, view: { fields: ['note'] } }] }, 'webhooks.endpoints[0].view.fields[0]: unknown field "note"'],
    ['a view of a field one of its collections lacks', { endpoints: [{ ...endpoint, events: ['posts.*', 'tags.*'], view: { fields: ['title'] } }] }, 'webhooks.endpoints[0].view.fields[0]: unknown field "title" (on "tags")'],
    ['a header the router sets', { endpoints: [{ ...endpoint, headers: { 'Webhook-Signature': 'v1,x' } }] }, 'webhooks.endpoints[0].headers.Webhook-Signature: set by the router itself'],
    ['a content-type header', { endpoints: [{ ...endpoint, headers: { 'content-type': 'text/plain' } }] }, 'webhooks.endpoints[0].headers.content-type: set by the router itself'],
    ['a header value that is not a string', { endpoints: [{ ...endpoint, headers: { 'X-Count': 3 } }] }, 'webhooks.endpoints[0].headers.X-Count: must be a string'],
    ['a header value with a line break', { endpoints: [{ ...endpoint, headers: { 'X-A': 'a\r\nX-B: b' } }] }, 'webhooks.endpoints[0].headers.X-A: must be a string without line breaks'],
    ['delays that are not a list', { endpoints: [endpoint], retry: { delays: 5000 } }, 'webhooks.retry.delays: must be an array'],
    ['a negative delay', { endpoints: [endpoint], retry: { delays: [1000, -5] } }, 'webhooks.retry.delays[1]: must be'],
    ['a delay over a week', { endpoints: [endpoint], retry: { delays: [8 * 86_400_000] } }, 'webhooks.retry.delays[0]: must be'],
    ['too many delays', { endpoints: [endpoint], retry: { delays: Array(21).fill(1000) } }, 'webhooks.retry.delays: must be an array of at most 20'],
    ['an unknown retry option', { endpoints: [endpoint], retry: { attempts: 3 } }, 'webhooks.retry.attempts: unknown option'],
    ['a timeout too short', { endpoints: [endpoint], timeoutMs: 10 }, 'webhooks.timeoutMs: must be a whole number of ms from 100 to 300000'],
    ['a retention in words', { endpoints: [endpoint], retention: 'a month' }, 'webhooks.retention: must be a duration'],
    ['a retention shorter than the retries', { endpoints: [endpoint], retention: '1h' }, 'webhooks.retention: must outlast the retry schedule'],
  ])('refuses %s', (_name, webhooks, problem) => {
    expect(problems(webhooks)).toEqual([expect.stringContaining(problem)]);
  });

  it('refuses a collection whose slug is "webhooks": the delivery log answers there', () => {
    const config = { collections: [...collections!, { slug: 'webhooks', fields: { name: { type: 'text' as const } } }] };
    expect(problems({ endpoints: [endpoint] }, config)).toEqual([expect.stringContaining('collides with the delivery log routes')]);
  });

  it('reports every problem at once, through contentRouter() too', () => {
    const build = () =>
      contentRouter({ db, collections, webhooks: { endpoints: [{ url: 'nope', secret: 'whsec_', events: ['pages.*'] }], timeoutMs: 0 } });
    expect(build).toThrow(ConfigError);
    try {
      build();
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'webhooks.endpoints[0].url: "nope" is not a URL',
        expect.stringContaining('webhooks.endpoints[0].secret:'),
        'webhooks.endpoints[0].events[0]: "pages" is not a collection',
        'webhooks.timeoutMs: must be a whole number of ms from 100 to 300000',
      ]);
    }
  });

  it('resolves the defaults, and which endpoint wants which event', () => {
    const resolved = parseWebhooksOptions({
        db,
        collections,
        webhooks: {
          endpoints: [
            { ...endpoint, events: ['posts.create', 'posts.update'] },
            { ...endpoint, url: 'https://example.com/all', events: ['*'] },
            { ...endpoint, url: 'https://example.com/filtered', events: ['posts.*'], where: { views: { gt: 1 } } },
          ],
        },
    }).options!;
    expect(resolved.delays).toEqual([5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000]);
    expect(resolved.timeoutMs).toBe(10_000);
    expect(resolved.retentionMs).toBe(30 * 86_400_000);
    expect([...resolved.slugs].sort()).toEqual(['posts', 'tags']);
    const [named, every, filtered] = resolved.endpoints;
    expect([named.wants('posts', 'create'), named.wants('posts', 'delete'), named.wants('tags', 'create')]).toEqual([true, false, false]);
    expect([every.wants('tags', 'delete'), every.wants('posts', 'update')]).toEqual([true, true]);
    // A where keeps deletes out: nothing is left after them to match.
    expect([filtered.wants('posts', 'update'), filtered.wants('posts', 'delete')]).toEqual([true, false]);
    expect(filtered.where?.get('posts')).toBeDefined();
    expect(parseWebhooksOptions({ db, collections }).options).toBeUndefined();
  });
});
