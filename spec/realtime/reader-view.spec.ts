// How an update looks to the readers of one read rule (pure): a record that entered a where-rule's view is a
// create ("entered-view"), one that left it a delete ("left-view"), told from the row before the change, from
// the fields it changed, or (unknown) on the safe side; every reader under one rule shares one answer, and
// readers whose rules answer the same constraint share one compiled rule.
import { Types } from 'mongoose';
import type { CollectionRuntime } from '../../lib/operations/runtime';
import { createRuleBook } from '../../lib/realtime/read-matcher';
import type { HubEntry, RealtimeEvent } from '../../lib/realtime/realtime-event';
import { viewOf } from '../../lib/realtime/reader-view';
import { describeCollection } from '../../lib/schema/describe-collection';

const articles = { descriptor: describeCollection({ slug: 'articles', fields: { title: { type: 'text' }, status: { type: 'text' } } }) } as unknown as CollectionRuntime;
const trashable = { descriptor: describeCollection({ slug: 'bin', softDelete: true, fields: { title: { type: 'text' } } }) } as unknown as CollectionRuntime;

const _id = new Types.ObjectId();
const docId = _id.toHexString();
const published = { status: { $eq: 'published' } };

function update(row: Record<string, unknown>, extra: { before?: Record<string, unknown>; changed?: string[] } = {}): HubEntry {
  const event: RealtimeEvent = { id: 'run-1', type: 'update', collection: 'articles', docId, doc: { id: docId, ...row }, updatedFields: extra.changed, timestamp: 'now' };
  return { event, row: { _id, ...row }, ...(extra.before ? { before: { _id, ...extra.before } } : {}), ...(extra.changed ? { changed: new Set(extra.changed) } : {}) };
}

describe('viewOf', () => {
  const rule = createRuleBook().rule(articles, published);

  it('with the row before the change: left is a delete, entered a create, stayed an update, never seen nothing', () => {
    const left = viewOf(rule, update({ status: 'draft' }, { before: { status: 'published' } }));
    expect(left?.event).toEqual({ id: 'run-1', type: 'delete', reason: 'left-view', collection: 'articles', docId, timestamp: 'now' });
    const entered = viewOf(rule, update({ status: 'published', title: 't' }, { before: { status: 'draft' }, changed: ['status'] }));
    expect(entered?.event).toEqual({ id: 'run-1', type: 'create', reason: 'entered-view', collection: 'articles', docId, doc: { id: docId, status: 'published', title: 't' }, timestamp: 'now' });
    const stayed = update({ status: 'published' }, { before: { status: 'published' }, changed: ['status'] });
    expect(viewOf(rule, stayed)).toBe(stayed);
    expect(viewOf(rule, update({ status: 'draft' }, { before: { status: 'draft' } }))).toBeUndefined();
  });

  it('without it, an update of fields the rule does not read moves nothing', () => {
    const seen = update({ status: 'published', title: 'x' }, { changed: ['title', 'updatedAt'] });
    expect(viewOf(rule, seen)).toBe(seen);
    expect(viewOf(rule, update({ status: 'draft', title: 'x' }, { changed: ['title'] }))).toBeUndefined();
  });

  it('when it cannot be told (the rule\'s fields changed, or nothing says which), a delete to readers who cannot read it, a create to those who can', () => {
    expect(viewOf(rule, update({ status: 'draft' }, { changed: ['status'] }))?.event).toMatchObject({ type: 'delete', reason: 'left-view' });
    expect(viewOf(rule, update({ status: 'draft' }))?.event).toMatchObject({ type: 'delete', reason: 'left-view' });
    expect(viewOf(rule, update({ status: 'published' }))?.event).toMatchObject({ type: 'create', reason: 'entered-view' });
  });

  it('works each rule\'s answer out once per entry, and shares the create or delete it makes (one JSON for all)', () => {
    const entry = update({ status: 'draft' }, { changed: ['status'] });
    const test = jest.spyOn(rule, 'test');
    const first = viewOf(rule, entry);
    expect(viewOf(rule, entry)).toBe(first);
    expect(test).toHaveBeenCalledTimes(1);
    test.mockRestore();
  });

  it('a rule without a constraint passes updates as they are; on a soft-delete collection a restore enters the view', () => {
    const book = createRuleBook();
    const openLive = { test: (row: Record<string, unknown>) => row.deletedAt == null, open: true, reads: new Set(['deletedAt']) };
    const restore = update({ deletedAt: null }, { changed: ['deletedAt'] });
    expect(viewOf(openLive, restore)?.event).toMatchObject({ type: 'create', reason: 'entered-view' });
    expect(viewOf(openLive, update({ title: 'x' }, { changed: ['title'] }))?.event).toMatchObject({ type: 'update' });
    expect(book.rule(trashable, {}).reads).toEqual(new Set(['deletedAt']));
  });
});

describe('createRuleBook', () => {
  it('compiles one rule per distinct constraint and collection, telling apart values JSON would not', () => {
    const book = createRuleBook();
    expect(book.rule(articles, { status: { $eq: 'published' } })).toBe(book.rule(articles, { status: { $eq: 'published' } }));
    expect(book.rule(articles, { status: { $eq: 'published' } })).not.toBe(book.rule(trashable, { status: { $eq: 'published' } }));
    const a = book.rule(articles, { title: /^a/ });
    const b = book.rule(articles, { title: /^b/ });
    expect(a).not.toBe(b);
    expect(b.test({ _id, title: 'bee' })).toBe(true);
    expect(a.test({ _id, title: 'bee' })).toBe(false);
  });

  it('knows which fields a rule reads, through $and and $or, by their first segment', () => {
    const rule = createRuleBook().rule(articles, { $or: [{ status: { $eq: 'published' } }, { $and: [{ 'owner.id': { $eq: 'x' } }, { title: { $ne: null } }] }] });
    expect(rule.reads).toEqual(new Set(['status', 'owner', 'title']));
  });

  it('keeps at most `max` rules, dropping the least recently used', () => {
    const book = createRuleBook(2);
    const first = book.rule(articles, { title: { $eq: '1' } });
    const second = book.rule(articles, { title: { $eq: '2' } });
    expect(book.rule(articles, { title: { $eq: '1' } })).toBe(first);
    book.rule(articles, { title: { $eq: '3' } });
    // '2' was the least recently used: compiled afresh.
    expect(book.rule(articles, { title: { $eq: '1' } })).toBe(first);
    expect(book.rule(articles, { title: { $eq: '2' } })).not.toBe(second);
  });
});
