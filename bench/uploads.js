'use strict';
// The uploads benchmark: one large file (default 200 MB) uploaded and downloaded through the router over
// HTTP, against a plain `fs` stream copy of the same bytes (and, for scale, a direct GridFS write and read
// with the driver, no HTTP) in the same run. Reports throughput ratios and the server process's RSS growth.
//
//   MONGODB_URI=mongodb://127.0.0.1:27017/?directConnection=true npm run build && node bench/uploads.js
//   (npm run bench runs it too, after the request cases, unless BENCH_CASES leaves out `uploads`)
//
// Knobs (env): BENCH_UPLOAD_MB=200. Goals: RSS growth < 50 MB, router throughput >= 0.5x the fs copy.

const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const express = require('express');
const mongoose = require('mongoose');
const { contentRouter } = require('content-router');

const MB = 1024 * 1024;
const GOALS = { rssGrowthMb: 50, throughputRatio: 0.5 };

/** Writes `size` random bytes to `file` (1 MiB pieces) and returns their sha256. */
async function writeTestFile(file, size) {
  const hash = createHash('sha256');
  const out = fs.createWriteStream(file);
  for (let written = 0; written < size; written += MB) {
    const piece = randomBytes(Math.min(MB, size - written));
    hash.update(piece);
    if (!out.write(piece)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
  return hash.digest('hex');
}

/** Samples this process's RSS every 20 ms while `fn` runs; returns its result, the time, and the peak growth. */
async function measure(fn) {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const began = process.hrtime.bigint();
  try {
    const result = await fn();
    const seconds = Number(process.hrtime.bigint() - began) / 1e9;
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, seconds, rssGrowthMb: (peak - start) / MB };
  } finally {
    clearInterval(timer);
  }
}

/** POSTs the file as multipart to `/api/upload`, streamed from disk; resolves with the record. */
function uploadThroughRouter(port, file, size, headers) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/api/upload',
      method: 'POST',
      headers: { ...headers, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + size + tail.length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts = [];
      res.on('data', (chunk) => parts.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(parts).toString();
        if (res.statusCode !== 201) reject(new Error(`upload answered ${res.statusCode}: ${body}`));
        else resolve(JSON.parse(body));
      });
    });
    req.write(head);
    const source = fs.createReadStream(file);
    source.on('error', reject);
    source.pipe(req, { end: false });
    source.on('end', () => req.end(tail));
  });
}

/** GETs `url` and hashes the body as it streams; resolves with its size and sha256. */
function downloadThroughRouter(port, url) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: url }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`download answered ${res.statusCode}`));
        const hash = createHash('sha256');
        let size = 0;
        res.on('data', (chunk) => {
          size += chunk.length;
          hash.update(chunk);
        });
        res.on('end', () => resolve({ size, sha256: hash.digest('hex') }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * Runs the measurement on an open mongoose connection; returns the result object (also printed).
 * `sizeMb` defaults to BENCH_UPLOAD_MB or 200.
 */
async function runUploadsBench(connection, { sizeMb = Number(process.env.BENCH_UPLOAD_MB || 200), log = console.log } = {}) {
  const size = Math.round(sizeMb * MB);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-bench-uploads-'));
  const source = path.join(dir, 'source.bin');
  const copy = path.join(dir, 'copy.bin');
  const bucket = `bench_${randomBytes(3).toString('hex')}`;
  const api = contentRouter({
    db: { connection },
    uploads: { bucket, maxFileSize: size + MB },
    logger: { error: console.error, warn: console.warn, info: () => undefined },
  });
  const app = express();
  app.use((req, _res, next) => {
    req.user = { id: 'bench' };
    next();
  });
  app.use('/api', api);
  await api.ready;
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  try {
    log(`uploads: writing a ${sizeMb} MB test file...`);
    const sha256 = await writeTestFile(source, size);

    const fsCopy = await measure(() => pipeline(fs.createReadStream(source), fs.createWriteStream(copy)));
    fs.rmSync(copy);

    const db = connection.db;
    const gridfs = new mongoose.mongo.GridFSBucket(db, { bucketName: `${bucket}_direct` });
    const directWrite = await measure(async () => {
      const stream = gridfs.openUploadStream('direct.bin');
      await pipeline(fs.createReadStream(source), stream);
      return stream.id;
    });
    const directRead = await measure(async () => {
      const hash = createHash('sha256');
      for await (const chunk of gridfs.openDownloadStream(directWrite.result)) hash.update(chunk);
      return hash.digest('hex');
    });
    await gridfs.drop().catch(() => undefined);

    const up = await measure(() => uploadThroughRouter(port, source, size, {}));
    const down = await measure(() => downloadThroughRouter(port, up.result.url));
    if (down.result.size !== size || down.result.sha256 !== sha256) throw new Error('uploads: the downloaded bytes differ from the uploaded ones');
    if (directRead.result !== sha256) throw new Error('uploads: the direct GridFS read differs from the file');

    const mbps = (seconds) => Math.round((sizeMb / seconds) * 10) / 10;
    const rows = [
      ['fs stream copy (baseline)', fsCopy],
      ['GridFS write, driver only', directWrite],
      ['GridFS read, driver only', directRead],
      ['POST /upload via router', up],
      ['GET /uploads/:filename via router', down],
    ].map(([name, run]) => ({ name, seconds: Math.round(run.seconds * 100) / 100, mbPerSecond: mbps(run.seconds), rssGrowthMb: Math.round(run.rssGrowthMb * 10) / 10 }));
    const result = {
      sizeMb,
      rows,
      uploadRatioVsFs: Math.round((fsCopy.seconds / up.seconds) * 1000) / 1000,
      downloadRatioVsFs: Math.round((fsCopy.seconds / down.seconds) * 1000) / 1000,
      uploadRatioVsDriver: Math.round((directWrite.seconds / up.seconds) * 1000) / 1000,
      downloadRatioVsDriver: Math.round((directRead.seconds / down.seconds) * 1000) / 1000,
      rssGrowthMb: Math.round(Math.max(up.rssGrowthMb, down.rssGrowthMb) * 10) / 10,
      goals: GOALS,
    };
    result.pass = {
      rss: result.rssGrowthMb < GOALS.rssGrowthMb,
      throughput: Math.min(result.uploadRatioVsFs, result.downloadRatioVsFs) >= GOALS.throughputRatio,
    };

    log('');
    const widths = [36, 10, 10, 14];
    log(['step', 'seconds', 'MB/s', 'RSS growth MB'].map((h, i) => (i ? h.padStart(widths[i]) : h.padEnd(widths[i]))).join('  '));
    for (const row of rows) {
      log([row.name.padEnd(widths[0]), String(row.seconds).padStart(widths[1]), String(row.mbPerSecond).padStart(widths[2]), String(row.rssGrowthMb).padStart(widths[3])].join('  '));
    }
    log('');
    log(`router vs fs copy: upload ${result.uploadRatioVsFs}x, download ${result.downloadRatioVsFs}x (goal >= ${GOALS.throughputRatio}x): ${result.pass.throughput ? 'ok' : 'BELOW'}`);
    log(`router vs driver-only GridFS: upload ${result.uploadRatioVsDriver}x, download ${result.downloadRatioVsDriver}x`);
    log(`server RSS growth during upload/download: ${result.rssGrowthMb} MB (goal < ${GOALS.rssGrowthMb} MB): ${result.pass.rss ? 'ok' : 'ABOVE'}`);
    await new Promise((resolve, reject) => http.request({ host: '127.0.0.1', port, path: up.result.url, method: 'DELETE' }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject).end());
    return result;
  } finally {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
    await api.close();
    await Promise.all([`${bucket}.files`, `${bucket}.chunks`].map((name) => connection.db.dropCollection(name).catch(() => undefined)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { runUploadsBench };

if (require.main === module) {
  const { MongoStartError, startMongo, connect, redact } = require('../example-app/mongo');
  (async () => {
    let mongo;
    let connection;
    try {
      mongo = await startMongo();
      connection = await connect(mongo.uri, `cr_bench_uploads_${randomBytes(4).toString('hex')}`);
      console.log(`MongoDB: ${mongo.source === 'MONGODB_URI' ? redact(mongo.uri) : 'mongodb-memory-server'}`);
      const result = await runUploadsBench(connection);
      fs.writeFileSync(path.join(__dirname, 'results-uploads.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...result }, null, 2)}\n`);
    } catch (error) {
      console.error(error instanceof MongoStartError ? error.message : `uploads bench failed: ${error && error.stack ? error.stack : error}`);
      process.exitCode = 1;
    } finally {
      if (connection) {
        await connection.dropDatabase().catch(() => undefined);
        await connection.close();
      }
      if (mongo) await mongo.stop();
    }
  })();
}
