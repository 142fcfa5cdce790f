'use strict';
// Diagnostic mode (BENCH_STUB_READS=1): every Mongoose read query runs against the database once,
// then answers from memory. With the database out of the picture, the read cases measure only the
// Node side (HTTP, Express, the router or the hand-written handler, casting, serialization): the
// router's own overhead. Useful where the only server at hand is slow or shared (mongo-java-server
// scans every document for a list). Writes (create) still reach the database.
// It covers all three sides: the peer (express-restify-mongoose) runs on a mongoose 9 model too, and its
// list and get are lean find, countDocuments and findOne queries through this same Query#exec.
// The population bench (bench/population.js) restores real reads first: an aggregation is no Query.

const STUBBED_OPS = new Set(['find', 'findOne', 'countDocuments', 'estimatedDocumentCount']);

/** Wraps mongoose.Query#exec with a per-query memo; returns a function that restores it. */
function stubReads(mongoose) {
  const { Query } = mongoose;
  const original = Query.prototype.exec;
  const memo = new Map();
  const copy = (value) => {
    if (Array.isArray(value)) return value.map((row) => (row && typeof row === 'object' ? { ...row } : row));
    return value && typeof value === 'object' ? { ...value } : value;
  };
  Query.prototype.exec = async function exec(...args) {
    if (!STUBBED_OPS.has(this.op) || (!this._mongooseOptions.lean && this.op !== 'countDocuments')) return original.apply(this, args);
    const key = `${this.model.collection.name}|${this.op}|${JSON.stringify(this.getFilter())}|${JSON.stringify(this.getOptions())}|${JSON.stringify(this._fields ?? null)}`;
    if (!memo.has(key)) memo.set(key, await original.apply(this, args));
    return copy(memo.get(key));
  };
  return () => {
    Query.prototype.exec = original;
  };
}

module.exports = { stubReads };
