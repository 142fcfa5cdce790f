// The `webhooks` option refuses an endpoint the router would accept at start-up but could never deliver to
// (credentials in its URL, a header value fetch refuses), and headers that would change how a receiver reads
// the signed body. Each is a ConfigError naming its path, never an endpoint whose every attempt fails.
import { randomBytes } from 'node:crypto';
import type { ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';
import { parseWebhooksOptions } from '../../lib/webhooks/webhook-options';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const collections: ContentConfig['collections'] = [{ slug: 'posts', fields: { title: { type: 'text' } } }];
const endpoint = { url: 'https://example.com/hooks', secret, events: ['posts.create'] };

function problems(webhooks: unknown): string[] {
  return validateConfig({ db, collections, webhooks } as ContentConfig, [parseWebhooksOptions]);
}

describe('webhooks config that could never deliver', () => {
  it.each<[string, unknown, string]>([
    // fetch refuses such a URL outright, and the log would show the password to every admin.
    ['a URL with a user and password', { endpoints: [{ ...endpoint, url: 'https://hook:s3cret@example.com/in' }] }, 'webhooks.endpoints[0].url: must not carry credentials'],
    ['a URL with a user only', { endpoints: [{ ...endpoint, url: 'https://hook@example.com/in' }] }, 'webhooks.endpoints[0].url: must not carry credentials'],
    // fetch refuses header values outside Latin-1 and with control characters: every attempt would fail.
    ['a header value beyond Latin-1', { endpoints: [{ ...endpoint, headers: { 'X-Tenant': 'caf\u00e9 \u20ac' } }] }, 'webhooks.endpoints[0].headers.X-Tenant: must be'],
    ['a header value with a NUL', { endpoints: [{ ...endpoint, headers: { 'X-Tenant': 'a\u0000b' } }] }, 'webhooks.endpoints[0].headers.X-Tenant: must be'],
    // The body is signed as sent: a content-encoding makes a receiver inflate it and fail.
    ['a content-encoding header', { endpoints: [{ ...endpoint, headers: { 'Content-Encoding': 'gzip' } }] }, 'webhooks.endpoints[0].headers.Content-Encoding: set by the router itself'],
    // The router sets its own; a second one is merged into "x, content-router-webhooks".
    ['a user-agent header', { endpoints: [{ ...endpoint, headers: { 'User-Agent': 'mine' } }] }, 'webhooks.endpoints[0].headers.User-Agent: set by the router itself'],
  ])('refuses %s', (_name, webhooks, problem) => {
    expect(problems(webhooks)).toEqual([expect.stringContaining(problem)]);
  });

  it('still accepts Latin-1 and tab in a header value', () => {
    expect(problems({ endpoints: [{ ...endpoint, headers: { 'X-Tenant': 'caf\u00e9\tnord' } }] })).toEqual([]);
  });
});
