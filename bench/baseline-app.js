'use strict';
// Side (b) of the benchmark: what a developer would hand-write instead of using the router.
// Express 5 and a plain Mongoose model on the same `posts` collection, `.lean()` reads, and the
// same response shapes as the router: records `{ id, ...fields }` with ISO dates and string ids,
// lists `{ data, meta: { total, page, perPage, totalPages } }`. A create does the checks the router's
// does: the body is validated and its `author` must name an existing author, before anything is written.

const express = require('express');
const { createSecretKey } = require('node:crypto');
const jwt = require('jsonwebtoken');
const { Schema, isValidObjectId } = require('mongoose');

const postSchema = new Schema(
  {
    title: { type: String, required: true },
    body: String,
    status: { type: String, enum: ['draft', 'published'], default: 'draft' },
    views: { type: Number, default: 0 },
    tags: { type: [String], default: undefined },
    publishedAt: Date,
    author: { type: Schema.Types.ObjectId, ref: 'BaselineAuthor' },
    featured: Boolean,
  },
  { timestamps: true, versionKey: false, autoIndex: false, autoCreate: false },
);

const authorSchema = new Schema({ name: String, email: String }, { timestamps: true, versionKey: false, autoIndex: false, autoCreate: false });

/** `_id` -> `id`, dates -> ISO strings, ObjectIds -> hex strings (one level, arrays included). */
function plain(value) {
  if (value instanceof Date) return value.toISOString();
  if (value && value._bsontype === 'ObjectId') return value.toHexString();
  if (Array.isArray(value)) return value.map(plain);
  return value;
}
/** The schema's fields: a record has each of them, null when the document has no value. */
const POST_FIELDS = [...Object.keys(postSchema.obj), 'createdAt', 'updatedAt'];
function toRecord(doc) {
  const record = { id: doc._id.toHexString() };
  for (const key of POST_FIELDS) record[key] = doc[key] === undefined ? null : plain(doc[key]);
  return record;
}

function positiveInt(value, fallback, max) {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : NaN;
}

/**
 * What a hand-written app does with `Authorization: Bearer <jwt>`: verify it (HS256, the router's secret)
 * and load the user it names. Without a secret, requests are anonymous.
 */
function bearerAuth(connection, jwtSecret) {
  const User = connection.models.BaselineUser || connection.model('BaselineUser', new Schema({}, { strict: false }), 'users');
  // A KeyObject made once: jsonwebtoken would otherwise convert the string secret on every verify.
  const key = jwtSecret ? createSecretKey(Buffer.from(jwtSecret)) : undefined;
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (!jwtSecret || !header) return next();
    try {
      const claims = jwt.verify(header.slice('Bearer '.length), key, { algorithms: ['HS256'] });
      req.user = await User.findById(claims.sub).lean();
      if (!req.user) return res.status(401).json({ error: 'unknown user' });
      next();
    } catch {
      res.status(401).json({ error: 'invalid token' });
    }
  };
}

/** Builds the baseline app on `connection`; with `jwtSecret`, bearer tokens are verified. Returns `{ app, Post }`. */
async function createBaselineApp(connection, { jwtSecret } = {}) {
  const Post = connection.models.BaselinePost || connection.model('BaselinePost', postSchema, 'posts');
  const Author = connection.models.BaselineAuthor || connection.model('BaselineAuthor', authorSchema, 'authors');
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.use(bearerAuth(connection, jwtSecret));

  // GET /api/posts?status=published&minViews=100&page=1&perPage=20, newest published first.
  app.get('/api/posts', async (req, res) => {
    const page = positiveInt(req.query.page, 1, 1e6);
    const perPage = positiveInt(req.query.perPage, 10, 100);
    if (Number.isNaN(page) || Number.isNaN(perPage)) return res.status(400).json({ error: 'bad page or perPage' });
    const filter = {};
    if (req.query.status !== undefined) filter.status = String(req.query.status);
    if (req.query.minViews !== undefined) {
      const minViews = Number(req.query.minViews);
      if (!Number.isFinite(minViews)) return res.status(400).json({ error: 'bad minViews' });
      filter.views = { $gte: minViews };
    }
    const [rows, total] = await Promise.all([
      Post.find(filter)
        .sort({ publishedAt: -1, _id: -1 })
        .skip((page - 1) * perPage)
        .limit(perPage)
        .lean(),
      Post.countDocuments(filter),
    ]);
    res.json({ data: rows.map(toRecord), meta: { total, page, perPage, totalPages: Math.ceil(total / perPage) } });
  });

  app.get('/api/posts/:id', async (req, res) => {
    if (!isValidObjectId(req.params.id)) return res.status(404).json({ error: 'not found' });
    const row = await Post.findById(req.params.id).lean();
    if (!row) return res.status(404).json({ error: 'not found' });
    res.json(toRecord(row));
  });

  // Validated first, so a bad body costs no query; then the author must exist (a dangling reference is a
  // 400, as on the router); then the insert, without validating twice.
  app.post('/api/posts', async (req, res) => {
    try {
      const doc = new Post(req.body);
      await doc.validate();
      if (doc.author && !(await Author.exists({ _id: doc.author }))) {
        return res.status(400).json({ error: `no author with id ${doc.author.toHexString()}` });
      }
      await doc.save({ validateBeforeSave: false });
      res.status(201).json(toRecord(doc.toObject()));
    } catch (error) {
      if (error.name === 'ValidationError' || error.name === 'CastError') return res.status(400).json({ error: error.message });
      throw error;
    }
  });

  return { app, Post, close: async () => undefined };
}

module.exports = { createBaselineApp, toRecord, postSchema, POST_FIELDS };
