'use strict';
// The example's config as a module, for `content-router generate:types` (npm start runs it into
// example-app/generated/). Loading it builds no router and opens no connection: the uri is never used.

const { exampleConfig } = require('./app');

module.exports = exampleConfig({ uri: process.env.MONGODB_URI || 'mongodb://127.0.0.1:27017/content_router_example' });
