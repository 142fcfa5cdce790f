'use strict';
// Autosave against the history: one editor saves one draft 1,000 times in a row (each save with If-Match, the
// ETag of the save before, as an editor's autosave would send it), all within `coalesce` (5 minutes) of each
// other, and the record's versions are counted. The goal: the saves add at most one version (a save by the
// caller who made the previous version, within `coalesce` of it, replaces that version instead of adding one).
//
//   MONGODB_URI=... node bench/draft-saves.js        (BENCH_DRAFT_SAVES=1000)
//
// Counted twice: in the history collection itself (`articles_versions`) and through GET .../versions. Run by
// `npm run bench`; writes bench/results-draft-saves.json. Like the other benchmarks, a count above its goal is
// reported (and flagged in the results) without failing the run; a route that answers anything unexpected fails it.

const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const express = require('express');
const { Types } = require('mongoose');
const { contentRouter } = require('content-router');
const { MongoStartError, startMongo, connect, redact } = require('../example-app/mongo');

const SAVES = Number(process.env.BENCH_DRAFT_SAVES || 1000);
/** The most versions the saves may add to the record's history. */
const GOAL = 1;

function config(connection) {
  const editors = ({ user }) => Boolean(user);
  return {
    db: { connection },
    auth: { jwtSecret: randomBytes(32).toString('hex'), jwtExpiry: '1h' },
    logger: { error: console.error, warn: console.warn, info: () => undefined },
    warnings: { unindexedSorts: false },
    collections: [
      { slug: 'users', auth: true, fields: {} },
      {
        slug: 'articles',
        versions: { drafts: true, coalesce: '5m' },
        access: { read: () => true, create: editors, update: editors, publish: editors, readDrafts: editors, readVersions: editors },
        fields: { title: { type: 'text', required: true }, slug: { type: 'text', unique: true }, body: { type: 'textarea' } },
      },
    ],
  };
}

/** A route the other parts of the workflow bring is missing here: nothing to measure. */
class NotThereYet extends Error {}

async function call(base, token, method, pathName, { body, ifMatch } = {}) {
  const headers = { authorization: `Bearer ${token}`, ...(body && { 'content-type': 'application/json' }), ...(ifMatch && { 'if-match': ifMatch }) };
  const res = await fetch(`${base}${pathName}`, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text; // the host's own 404 page: no router route answered
  }
  return { status: res.status, etag: res.headers.get('etag'), body: parsed };
}

/** A 404 here means the route is missing from this build (a draft just created exists): reported, not failed. */
function expectStatus(answer, status, what) {
  if (answer.status === 404) throw new NotThereYet(`${what} answered 404`);
  if (answer.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
}

async function main() {
  const mongo = await startMongo();
  const connection = await connect(mongo.uri, `cr_draft_saves_${randomBytes(4).toString('hex')}`);
  const api = contentRouter(config(connection));
  const app = express();
  app.use('/api', api);
  const server = app.listen(0, '127.0.0.1');
  const result = { at: new Date().toISOString(), saves: SAVES, goal: GOAL, mongo: mongo.source };
  try {
    await api.ready;
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${server.address().port}/api`;
    const { accessToken } = await api.auth.register('editor@example.com', `Bench-${randomBytes(12).toString('hex')}`, 'Editor');

    const created = await call(base, accessToken, 'POST', '/articles?draft=true', { body: { title: 'Autosaved' } });
    expectStatus(created, 201, 'POST /articles?draft=true');
    // A create that answered a published record is no draft: the drafts routes are not there yet.
    const id = created.body.id;
    const draft = await call(base, accessToken, 'GET', `/articles/${id}/draft`);
    expectStatus(draft, 200, 'GET /articles/:id/draft');
    const versions = connection.collection('articles_versions');
    // The record's id as stored (an ObjectId), or as a string should the history keep it so.
    const ofRecord = { record: { $in: [id, ...(Types.ObjectId.isValid(id) ? [new Types.ObjectId(id)] : [])] } };
    const before = await versions.countDocuments(ofRecord);

    let etag = draft.etag;
    const started = process.hrtime.bigint();
    for (let i = 1; i <= SAVES; i++) {
      const saved = await call(base, accessToken, 'PATCH', `/articles/${id}/draft`, { body: { body: `Autosave ${i}` }, ifMatch: etag ?? undefined });
      expectStatus(saved, 200, `PATCH /articles/:id/draft (save ${i})`);
      etag = saved.etag;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;

    const after = await versions.countDocuments(ofRecord);
    const listed = await call(base, accessToken, 'GET', `/articles/${id}/versions`);
    Object.assign(result, {
      measured: true,
      seconds: Number(seconds.toFixed(2)),
      versionsBefore: before,
      versionsAfter: after,
      addedBySaves: after - before,
      versionsListed: listed.status === 200 ? (listed.body?.meta?.total ?? listed.body?.totalDocs ?? listed.body?.data?.length ?? null) : null,
      // A history with no version at all recorded nothing: no goal is met by that.
      pass: after >= 1 && after - before <= GOAL,
    });
    console.log(`\nDraft saves (MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : mongo.source})`);
    console.log(`${SAVES} saves of one draft by one editor in ${result.seconds} s (${Math.round(SAVES / seconds)} saves/s), within coalesce (5m)`);
    console.log(`versions of the record: ${before} before the saves, ${after} after (GET .../versions: ${result.versionsListed ?? `HTTP ${listed.status}`})`);
    if (after === 0) console.log('no version recorded at all: this build does not record versions (not measured)');
    else console.log(`added by the saves: ${after - before}; goal <= ${GOAL} ${result.pass ? 'ok' : 'ABOVE'}`);
  } catch (error) {
    if (!(error instanceof NotThereYet)) throw error;
    Object.assign(result, { measured: false, reason: error.message });
    console.log(`\nDraft saves: NOT MEASURED: ${error.message} (the draft and version routes are not in this build)`);
  } finally {
    server.close();
    await api.close();
    await connection.dropDatabase().catch(() => undefined);
    await connection.close();
    await mongo.stop();
  }
  fs.writeFileSync(path.join(__dirname, 'results-draft-saves.json'), `${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error) => {
  if (error instanceof MongoStartError) console.error(error.message);
  else console.error(error);
  process.exitCode = 1;
});
