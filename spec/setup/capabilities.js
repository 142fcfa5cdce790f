'use strict';
/**
 * Probes what the MongoDB server under test really supports. Plain CommonJS so that both the
 * Jest global setup (plain JS) and spec/helpers/test-db.ts (typed via capabilities.d.ts) share
 * one implementation.
 *
 * Every probe catches its own errors and reports `false`; nothing here throws.
 */
const crypto = require('node:crypto');

const CAPABILITIES_ENV = 'TEST_DB_CAPABILITIES';

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Multi-document transaction through the driver's withTransaction; checks the write committed. */
async function probeTransactions(client, db, name) {
  const coll = db.collection(name);
  try {
    await coll.insertOne({ probe: 'before' }); // create the collection outside the transaction
    const session = client.startSession();
    try {
      await withTimeout(
        session.withTransaction(async () => {
          await coll.insertOne({ probe: 'in-tx' }, { session });
        }),
        5000,
        'transaction probe',
      );
    } finally {
      await session.endSession();
    }
    return (await coll.countDocuments({ probe: 'in-tx' })) === 1;
  } catch (err) {
    return { ok: false, err };
  } finally {
    await coll.drop().catch(() => undefined);
  }
}

/** Text index + $text query that must find exactly the matching document. */
async function probeTextSearch(db, name) {
  const coll = db.collection(name);
  try {
    await coll.insertMany([{ body: 'the quick brown fox' }, { body: 'lazy dogs sleep' }]);
    await coll.createIndex({ body: 'text' });
    const found = await coll.find({ $text: { $search: 'fox' } }).toArray();
    return found.length === 1 && found[0].body === 'the quick brown fox';
  } catch (err) {
    return { ok: false, err };
  } finally {
    await coll.drop().catch(() => undefined);
  }
}

/**
 * Next change of `stream` (iterator mode), or null after `timeoutMs`. The first call also opens
 * the stream server-side: tryNext() runs the initial aggregate, then at most one getMore.
 * With `singleTry`, returns after one tryNext() (null when idle): use it to open a stream.
 */
async function nextChangeWithin(stream, timeoutMs, singleTry = false) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return null;
    const doc = await withTimeout(stream.tryNext(), remaining, 'change stream read');
    if (doc || singleTry) return doc;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Opens a collection change stream, waits until the server accepted it, inserts, expects the event. */
async function probeChangeStreams(db, name, timeoutMs) {
  const coll = db.collection(name);
  let stream;
  try {
    await coll.insertOne({ probe: 'create' });
    stream = coll.watch([], { maxAwaitTimeMS: 100 });
    // Establish the stream before writing (tryNext runs the $changeStream aggregate), so the
    // insert below cannot race the stream's start.
    const early = await nextChangeWithin(stream, timeoutMs, true);
    if (early) throw new Error('change stream delivered an event before any write');
    const marker = crypto.randomBytes(6).toString('hex');
    await coll.insertOne({ marker });
    const ev = await nextChangeWithin(stream, timeoutMs);
    if (!ev) throw new Error(`no change stream event within ${timeoutMs} ms`);
    return ev.operationType === 'insert' && !!ev.fullDocument && ev.fullDocument.marker === marker;
  } catch (err) {
    return { ok: false, err };
  } finally {
    if (stream) await stream.close().catch(() => undefined);
    await coll.drop().catch(() => undefined);
  }
}

/**
 * Whether findOneAndUpdate and findOneAndDelete writes show on a change stream with the document's key, as
 * they do on MongoDB (plain mongo-java-server reports only plain inserts, updates and deletes; the CI
 * launcher extends it to report these too).
 */
async function probeFindAndModifyEvents(db, name, timeoutMs) {
  const coll = db.collection(name);
  let stream;
  try {
    const { insertedId } = await coll.insertOne({ probe: 'fam' });
    stream = coll.watch([], { maxAwaitTimeMS: 100 });
    await nextChangeWithin(stream, timeoutMs, true);
    await coll.findOneAndUpdate({ _id: insertedId }, { $set: { probe: 'updated' } });
    const updated = await nextChangeWithin(stream, timeoutMs);
    if (!updated) throw new Error(`no change stream event for findOneAndUpdate within ${timeoutMs} ms`);
    await coll.findOneAndDelete({ _id: insertedId });
    const deleted = await nextChangeWithin(stream, timeoutMs);
    if (!deleted) throw new Error(`no change stream event for findOneAndDelete within ${timeoutMs} ms`);
    const keyed = (ev) => !!ev.documentKey && String(ev.documentKey._id) === String(insertedId);
    return updated.operationType === 'update' && keyed(updated) && deleted.operationType === 'delete' && keyed(deleted);
  } catch (err) {
    return { ok: false, err };
  } finally {
    if (stream) await stream.close().catch(() => undefined);
    await coll.drop().catch(() => undefined);
  }
}

/**
 * The explain command with executionStats, as MongoDB answers it: a winning plan and the documents the
 * query examined (mongo-java-server has no explain command).
 */
async function probeExplain(db, name) {
  const coll = db.collection(name);
  try {
    await coll.insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    await coll.createIndex({ a: 1 });
    const explained = await coll.find({ a: { $gte: 2 } }).sort({ a: 1 }).limit(1).explain('executionStats');
    const stats = explained && explained.executionStats;
    return !!stats && typeof stats.totalDocsExamined === 'number' && !!explained.queryPlanner && typeof explained.queryPlanner.winningPlan === 'object';
  } catch (err) {
    return { ok: false, err };
  } finally {
    await coll.drop().catch(() => undefined);
  }
}

/**
 * Collations: a sort with `{ locale: 'fr' }` puts "Élection" before "Zebra", as MongoDB's ICU collation does
 * (mongo-java-server accepts the option and ignores it: code-point order puts "É" after "Z").
 */
async function probeCollation(db, name) {
  const coll = db.collection(name);
  try {
    await coll.insertMany([{ t: 'Zebra' }, { t: 'Élection' }]);
    const sorted = await coll.find({}, { collation: { locale: 'fr' } }).sort({ t: 1 }).toArray();
    return sorted.map((doc) => doc.t).join(',') === 'Élection,Zebra';
  } catch (err) {
    return { ok: false, err };
  } finally {
    await coll.drop().catch(() => undefined);
  }
}

/**
 * @param {import('mongodb').MongoClient} client
 * @param {import('mongodb').Db} db  scratch database; probe collections are created and dropped in it
 * @param {{ timeoutMs?: number, onFailure?: (feature: string, err: unknown) => void }} [options]
 * @returns {Promise<{ transactions: boolean, textSearch: boolean, changeStreams: boolean, findAndModifyEvents: boolean, explain: boolean, collation: boolean }>}
 */
async function probeCapabilities(client, db, options = {}) {
  const timeoutMs = options.timeoutMs ?? 3000;
  const suffix = crypto.randomBytes(4).toString('hex');
  const results = {
    transactions: await probeTransactions(client, db, `__probe_tx_${suffix}`),
    textSearch: await probeTextSearch(db, `__probe_text_${suffix}`),
    changeStreams: await probeChangeStreams(db, `__probe_cs_${suffix}`, timeoutMs),
  };
  results.findAndModifyEvents = results.changeStreams === true ? await probeFindAndModifyEvents(db, `__probe_fam_${suffix}`, timeoutMs) : false;
  results.explain = await probeExplain(db, `__probe_explain_${suffix}`);
  results.collation = await probeCollation(db, `__probe_collation_${suffix}`);
  const caps = {};
  for (const [feature, r] of Object.entries(results)) {
    if (r === true) caps[feature] = true;
    else {
      caps[feature] = false;
      if (options.onFailure) options.onFailure(feature, r && r.err ? r.err : new Error('probe returned a wrong result'));
    }
  }
  return caps;
}

/** Capabilities probed once by the Jest global setup, passed to workers through the environment. */
function readCapabilitiesFromEnv() {
  const raw = process.env[CAPABILITIES_ENV];
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw);
    return {
      transactions: parsed.transactions === true,
      textSearch: parsed.textSearch === true,
      changeStreams: parsed.changeStreams === true,
      findAndModifyEvents: parsed.findAndModifyEvents === true,
      explain: parsed.explain === true,
      collation: parsed.collation === true,
    };
  } catch {
    return undefined;
  }
}

module.exports = { probeCapabilities, readCapabilitiesFromEnv, nextChangeWithin, CAPABILITIES_ENV };
