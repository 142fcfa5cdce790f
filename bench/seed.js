'use strict';
// Seeds the benchmark database directly with the driver's insertMany (no router, no Mongoose
// validation): a few authors and N posts with realistic, deterministic field values.

const { Types } = require('mongoose');

/** Small deterministic PRNG (mulberry32), so every run seeds the same shapes. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'mongo express router content schema query filter index cursor page sort field record api ' +
  'node stream cache token access draft publish author review release migrate deploy scale ' +
  'latency throughput replica shard backup restore search render template config plugin'
).split(' ');
const TAGS = ['express', 'mongodb', 'mongoose', 'rest', 'cms', 'typescript', 'howto', 'release', 'news', 'perf'];
const AUTHORS = [
  ['Ada Lovelace', 'ada@example.com'],
  ['Grace Hopper', 'grace@example.com'],
  ['Alan Turing', 'alan@example.com'],
  ['Edsger Dijkstra', 'edsger@example.com'],
  ['Barbara Liskov', 'barbara@example.com'],
];

function sentence(next, words) {
  const out = [];
  for (let i = 0; i < words; i += 1) out.push(WORDS[Math.floor(next() * WORDS.length)]);
  const text = out.join(' ');
  return text[0].toUpperCase() + text.slice(1);
}

/**
 * Inserts the authors and `posts` posts into `connection`'s `authors` and `posts` collections.
 * Every seeded record is dated before `seededAt`, so writes made by the benchmark can be told apart.
 * Returns `{ authorIds, postIds, publishedIds, seededAt }` (ids as strings).
 */
async function seed(connection, { posts = 10000, batchSize = 1000 } = {}) {
  const next = random(20240601);
  const seededAt = new Date();
  const start = seededAt.getTime() - 1000; // strictly before anything the benchmark writes
  const db = connection.db;

  const authors = AUTHORS.map(([name, email], i) => {
    const at = new Date(start - (AUTHORS.length - i) * 60_000 - posts * 60_000);
    return { _id: new Types.ObjectId(), name, email, createdAt: at, updatedAt: at };
  });
  await db.collection('authors').insertMany(authors);

  const postIds = [];
  const publishedIds = [];
  for (let offset = 0; offset < posts; offset += batchSize) {
    const docs = [];
    for (let i = offset; i < Math.min(posts, offset + batchSize); i += 1) {
      const createdAt = new Date(start - (posts - i) * 60_000); // one a minute, oldest first
      const published = next() < 0.7;
      const doc = {
        _id: new Types.ObjectId(),
        title: sentence(next, 4 + Math.floor(next() * 5)),
        body: `${sentence(next, 40 + Math.floor(next() * 40))}.`,
        status: published ? 'published' : 'draft',
        // Skewed like real traffic: most posts few views, a long tail of popular ones.
        views: published ? Math.floor(next() ** 3 * 5000) : 0,
        tags: [...new Set([TAGS[Math.floor(next() * TAGS.length)], TAGS[Math.floor(next() * TAGS.length)]])],
        author: authors[Math.floor(next() * authors.length)]._id,
        featured: next() < 0.05,
        createdAt,
        updatedAt: createdAt,
      };
      // Published a little after creation; unique to the millisecond, so sort order is unambiguous.
      if (published) doc.publishedAt = new Date(createdAt.getTime() + 30_000 + i);
      docs.push(doc);
      postIds.push(String(doc._id));
      if (published) publishedIds.push(String(doc._id));
    }
    await db.collection('posts').insertMany(docs, { ordered: false });
  }
  return { authorIds: authors.map((a) => String(a._id)), postIds, publishedIds, seededAt };
}

module.exports = { seed, random };
