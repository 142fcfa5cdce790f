'use strict';
/** Jest global teardown: stops the MongoMemoryReplSet if global-setup.js started one. */
module.exports = async function globalTeardown() {
  const replSet = globalThis.__CR_MONGO_REPLSET__;
  if (replSet) {
    globalThis.__CR_MONGO_REPLSET__ = undefined;
    await replSet.stop({ doCleanup: true });
  }
};
