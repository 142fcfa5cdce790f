// An endpoint URL with a user name or password is a ConfigError saying to use headers instead: Node's fetch
// refuses every request to such a URL (each attempt a "connection error" until `failed`), and the credentials
// would show in the delivery log and the logs. The error does not repeat the password.
import { randomBytes } from 'node:crypto';
import type { ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';
import { parseWebhooksOptions } from '../../lib/webhooks/webhook-options';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const collections: ContentConfig['collections'] = [{ slug: 'posts', fields: { title: { type: 'text' } } }];

function problems(url: string): string[] {
  return validateConfig({ db, collections, webhooks: { endpoints: [{ url, secret, events: ['posts.*'] }] } } as ContentConfig, [parseWebhooksOptions]);
}

describe('webhooks endpoint URLs carrying credentials', () => {
  it.each([
    ['a user and password', 'https://hook:s3cret@example.com/in'],
    ['a user only', 'https://hook@example.com/in'],
  ])('refuses an endpoint URL with %s, without repeating the password', (_name, url) => {
    const found = problems(url);
    expect(found).toEqual([expect.stringContaining('webhooks.endpoints[0].url: must not carry credentials')]);
    expect(found[0]).not.toContain('s3cret');
    expect(found[0]).toContain('headers');
  });

  it('still accepts a plain URL', () => {
    expect(problems('https://example.com/in?token=abc')).toEqual([]);
  });
});
