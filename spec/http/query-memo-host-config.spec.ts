// The query memo deep-freezes what it keeps; a parsed condition holds the field's descriptor, whose
// `config` is the host's own field config object. A client's GET must not freeze the host's objects.
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/create-test-app';

const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };

describe('a client query and the host\'s config objects', () => {
  const STATUSES = ['draft', 'published'];
  const statusField = { type: 'select' as const, options: STATUSES, default: 'draft' };
  const metaDefault = { tags: ['x'] };
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      collections: [{ slug: 'posts', fields: { status: statusField, meta: { type: 'json', default: metaDefault } }, access: everyone }],
    });
  });
  afterAll(async () => t?.close());

  it('leaves them as mutable as before after a filtered list', async () => {
    expect([Object.isFrozen(STATUSES), Object.isFrozen(statusField), Object.isFrozen(metaDefault)]).toEqual([false, false, false]);
    const res = await request(t.app).get('/api/posts?where[status][eq]=draft&where[meta][exists]=true');
    expect(res.status).toBe(200);
    // The host's code goes on using its own objects (here: a constant list of statuses it shares).
    expect(() => STATUSES.push('archived')).not.toThrow();
    expect(() => {
      (statusField as Record<string, unknown>).label = 'Status';
    }).not.toThrow();
    expect(() => metaDefault.tags.push('y')).not.toThrow();
  });
});
