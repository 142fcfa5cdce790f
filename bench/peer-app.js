'use strict';
// Side (c) of the benchmark: express-restify-mongoose (ERM), the closest published peer: a REST API
// generated from a Mongoose model. It serves the baseline's `posts` schema on the shared connection at
// /api/posts (list, get by id, create), lean reads, the list's total in the X-Total-Count header.
//
// ERM 9 depends on mongoose 8 (its own copy under its node_modules), but its code never requires it:
// it only calls the model it is given (find, findOne, countDocuments, create, query.lean/sort/...).
// So it runs on a mongoose 9 model here, on the same connection, and BENCH_STUB_READS (which wraps
// mongoose 9's Query#exec) covers its reads as it covers the router's and the baseline's.

const express = require('express');
const { serve } = require('express-restify-mongoose');
const { postSchema } = require('./baseline-app');

/** The list case in ERM's query syntax: a JSON `query`, a mongoose `sort` string, `limit`. */
const PEER_LIST_PATH = `/api/posts?query=${encodeURIComponent(JSON.stringify({ status: 'published', views: { $gte: 100 } }))}&sort=${encodeURIComponent('-publishedAt -_id')}&limit=20`;

/** Builds the peer app on `connection`. Returns `{ app, Post, close }`. */
async function createPeerApp(connection) {
  const Post = connection.models.PeerPost || connection.model('PeerPost', postSchema, 'posts');
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  // prefix + empty version: /api/posts and /api/posts/:id, the baseline's paths.
  serve(app, Post, { name: 'posts', prefix: '/api', version: '', totalCountHeader: true, lean: true });
  return { app, Post, close: async () => undefined };
}

module.exports = { createPeerApp, PEER_LIST_PATH };
