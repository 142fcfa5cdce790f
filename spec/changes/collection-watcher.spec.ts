// The watcher's recovery, against a scripted stand-in for the driver (no database): it resumes from its
// last token after an error, starts afresh with a reset when the token is lost, stops for good where change
// streams are unsupported, and close() ends the loop.
import type { mongo } from 'mongoose';
import { Types } from 'mongoose';
import { type WatcherOptions, createCollectionWatcher, isUnsupportedError } from '../../lib/changes/collection-watcher';
import type { NormalizedChange, WatchTarget } from '../../lib/changes/normalize-change';
import { quietFor, until as untilWithin } from '../helpers/eventually';

/** The stubbed streams answer at once: five seconds is plenty. */
const until = (check: () => boolean) => untilWithin(check, 5000);

type Step = mongo.ChangeStreamDocument | Error | null;

function serverError(message: string, code: number): Error {
  return Object.assign(new Error(message), { code });
}

function insert(n: number): mongo.ChangeStreamDocument {
  const _id = new Types.ObjectId();
  return { _id: { _data: `t${n}` }, operationType: 'insert', fullDocument: { _id, n }, documentKey: { _id } } as unknown as mongo.ChangeStreamDocument;
}

/** A db whose every watch() call plays the next script, then idles. Records the options of each call. */
function scriptedDb(scripts: Step[][]) {
  const calls: mongo.ChangeStreamOptions[] = [];
  let closedStreams = 0;
  const db = {
    collection: () => ({
      watch(_pipeline: unknown, options: mongo.ChangeStreamOptions) {
        calls.push(options);
        const script = [...(scripts.shift() ?? [])];
        const stream = {
          resumeToken: undefined as unknown,
          async tryNext() {
            await new Promise((resolve) => setImmediate(resolve));
            const step = script.length ? script.shift()! : null;
            if (step instanceof Error) throw step;
            if (step) stream.resumeToken = step._id;
            return step;
          },
          /** The changes at the head of the script, as a driver's buffer of one server batch. */
          bufferedCount() {
            const end = script.findIndex((step) => !step || step instanceof Error);
            return end === -1 ? script.length : end;
          },
          async close() {
            closedStreams += 1;
          },
        };
        return stream;
      },
    }),
  } as unknown as mongo.Db;
  return { db, calls, closed: () => closedStreams };
}

const target: WatchTarget = { scope: 'collection', slugs: ['posts'], collectionName: 'posts' };
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

function watch(scripts: Step[][], options: WatcherOptions = {}, handle?: (change: NormalizedChange) => void | Promise<void>) {
  const fake = scriptedDb(scripts);
  const changes: NormalizedChange[] = [];
  const downs: Array<{ error: unknown; unsupported: boolean }> = [];
  let opens = 0;
  const watcher = createCollectionWatcher(
    fake.db,
    target,
    {
      onChange: (c) => {
        changes.push(c);
        return handle?.(c);
      },
      onOpen: () => (opens += 1),
      onDown: (error, unsupported) => downs.push({ error, unsupported }),
    },
    silent,
    options,
  );
  return { ...fake, watcher, changes, downs, opens: () => opens };
}

describe('createCollectionWatcher', () => {
  it('opens with fullDocument: updateLookup and publishes normalised changes', async () => {
    const w = watch([[null, insert(1), insert(2)]]);
    await w.watcher.started;
    await until(() => w.changes.length === 2);
    expect(w.calls[0]).toMatchObject({ fullDocument: 'updateLookup' });
    expect(w.calls[0].resumeAfter).toBeUndefined();
    expect(w.changes.map((c) => c.kind === 'change' && c.event.resumeToken)).toEqual([{ _data: 't1' }, { _data: 't2' }]);
    await w.watcher.close();
  });

  it('resumes after the last token when the stream fails, without a reset', async () => {
    const w = watch([[null, insert(1), serverError('connection reset', 6)], [insert(2)]]);
    await until(() => w.changes.length === 2);
    expect(w.calls).toHaveLength(2);
    expect(w.calls[1].resumeAfter).toEqual({ _data: 't1' });
    expect(w.changes.every((c) => c.kind === 'change')).toBe(true);
    expect(w.opens()).toBe(2);
    await w.watcher.close();
  });

  it('starts afresh and publishes a reset when the resume point is lost', async () => {
    const w = watch([[null, insert(1), serverError('connection reset', 6)], [serverError('history lost', 286)], [insert(3)]]);
    await until(() => w.changes.some((c) => c.kind === 'change' && c.event.resumeToken && (c.event.resumeToken as { _data: string })._data === 't3'));
    expect(w.calls.map((c) => c.resumeAfter)).toEqual([undefined, { _data: 't1' }, undefined]);
    expect(w.changes.map((c) => c.kind)).toEqual(['change', 'reset', 'change']);
    await w.watcher.close();
  });

  it('starts afresh with a reset after a drop', async () => {
    const drop = { _id: { _data: 't2' }, operationType: 'drop', ns: { db: 'x', coll: 'posts' } } as unknown as mongo.ChangeStreamDocument;
    const w = watch([[null, insert(1), drop], [insert(3)]]);
    await until(() => w.changes.length === 3);
    expect(w.changes.map((c) => c.kind)).toEqual(['change', 'reset', 'change']);
    expect(w.calls[1].resumeAfter).toBeUndefined();
    await w.watcher.close();
  });

  it('starts after a kept token, and keeps it through outages when asked', async () => {
    const outage = Object.assign(new Error('connection refused'), { name: 'MongoNetworkError' });
    const w = watch([[outage], [outage], [outage], [outage], [insert(5)]], { startAfter: { _data: 't4' }, keepTokenThroughOutages: true });
    await until(() => w.changes.length === 1);
    // Four outages, never a reset: the kept token opens with startAfter each time until the stream opens.
    expect(w.calls.map((c) => c.startAfter ?? c.resumeAfter)).toEqual(Array(5).fill({ _data: 't4' }));
    expect(w.calls[0].startAfter).toEqual({ _data: 't4' });
    expect(w.changes.map((c) => c.kind)).toEqual(['change']);
    await w.watcher.close();
  });

  it('awaits a consumer before the next change, and reads a change again when its consumer failed', async () => {
    let fail = true;
    const order: string[] = [];
    const w = watch([[null, insert(1), insert(2)], [insert(2), insert(3)]], {}, async (c) => {
      const n = c.kind === 'change' ? (c.event.resumeToken as { _data: string })._data : c.kind;
      order.push(`start ${n}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (n === 't2' && fail) {
        fail = false;
        throw new Error('database down');
      }
      order.push(`end ${n}`);
    });
    await until(() => order.includes('end t3'));
    expect(order).toEqual(['start t1', 'end t1', 'start t2', 'start t2', 'end t2', 'start t3', 'end t3']);
    // Reopened after t1, the last change handled; the consumer's failure is no reason to reset.
    expect(w.calls[1].resumeAfter).toEqual({ _data: 't1' });
    expect(w.changes.map((c) => c.kind)).not.toContain('reset');
    expect(w.downs).toEqual([{ error: expect.objectContaining({ message: 'database down' }), unsupported: false }]);
    await w.watcher.close();
  });

  it('hands a consumer of batches what the server sent together, in one call', async () => {
    const fake = scriptedDb([[null, insert(1), insert(2), insert(3), null, insert(4)]]);
    const batches: string[][] = [];
    const watcher = createCollectionWatcher(
      fake.db,
      target,
      {
        onChange: () => undefined,
        onChanges: (changes) => void batches.push(changes.map((c) => (c.kind === 'change' ? (c.event.resumeToken as { _data: string })._data : c.kind))),
        onDown: () => undefined,
      },
      silent,
    );
    await until(() => batches.flat().length === 4);
    expect(batches).toEqual([['t1', 't2', 't3'], ['t4']]);
    await watcher.close();
  });

  it('goes on past a drop of another collection, and hands a consumer of batches the position past each batch', async () => {
    const elsewhere = { _id: { _data: 't2' }, operationType: 'drop', ns: { db: 'x', coll: 'pages' } } as unknown as mongo.ChangeStreamDocument;
    const fake = scriptedDb([[null, insert(1), null, elsewhere, null, insert(3)]]);
    const batches: Array<{ kinds: string[]; position: unknown }> = [];
    const watcher = createCollectionWatcher(
      fake.db,
      target,
      { onChange: () => undefined, onChanges: (changes, position) => void batches.push({ kinds: changes.map((c) => c.kind), position }), onDown: () => undefined },
      silent,
    );
    await until(() => batches.length === 3);
    expect(batches).toEqual([
      { kinds: ['change'], position: { _data: 't1' } },
      // Nothing to deliver, but a position to keep: a restart must not read the drop again.
      { kinds: ['ignore'], position: { _data: 't2' } },
      { kinds: ['change'], position: { _data: 't3' } },
    ]);
    // One stream throughout: the drop was not this collection's.
    expect(fake.calls).toHaveLength(1);
    await watcher.close();
  });

  it('stops for good where change streams are not supported', async () => {
    const w = watch([[serverError('The $changeStream stage is only supported on replica sets', 40573)]]);
    await w.watcher.started;
    expect(w.downs).toEqual([{ error: expect.any(Error), unsupported: true }]);
    await w.watcher.close();
    expect(w.calls).toHaveLength(1);
    expect(w.opens()).toBe(0);
  });

  it('close() ends the loop and closes the stream, even while idle', async () => {
    const w = watch([[null]]);
    await w.watcher.started;
    await w.watcher.close();
    const calls = w.calls.length;
    expect(w.closed()).toBeGreaterThanOrEqual(1);
    await quietFor(300); // no call after close()
    expect(w.calls).toHaveLength(calls);
  });
});

describe('isUnsupportedError', () => {
  it('recognises a standalone server, and not a network error', () => {
    expect(isUnsupportedError(serverError('The $changeStream stage is only supported on replica sets', 40573))).toBe(true);
    expect(isUnsupportedError(serverError('connection reset', 6))).toBe(false);
  });
});
