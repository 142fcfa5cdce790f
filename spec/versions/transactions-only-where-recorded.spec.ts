// A write pays for a transaction only where something records its changes: with the history's recorders
// registered, a collection without versions writes without one; any recorder that does not say which
// collections it records (a future audit log) records them all.
import type { Model } from 'mongoose';
import { keepsHistory, versionRecorder } from '../../lib/operations/versions/record-version';
import { createRuntimeHooks, type Runtime } from '../../lib/operations/runtime';
import { recorderFor, recordsChanges } from '../../lib/operations/write/stored-change';
import type { CollectionDescriptor } from '../../lib/schema/descriptors';
import { createTestClock } from '../helpers/test-clock';

describe('which writes run in a transaction', () => {
  const descriptor = { slug: 'posts' } as CollectionDescriptor;
  const plain = { descriptor };
  const versioned = { descriptor, versions: {} as Model<Record<string, unknown>> };

  it('records only the collections its recorders keep', () => {
    const hooks = createRuntimeHooks();
    const runtime = { hooks } as unknown as Runtime;
    expect(recordsChanges(runtime, versioned)).toBe(false);
    hooks.changeStored.push(recorderFor(keepsHistory, async () => {}), versionRecorder(createTestClock()));
    expect(recordsChanges(runtime, plain)).toBe(false);
    expect(recordsChanges(runtime, versioned)).toBe(true);
    hooks.changeStored.push(async () => {});
    expect(recordsChanges(runtime, plain)).toBe(true);
  });
});
