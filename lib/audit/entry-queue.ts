// Entries stored outside any transaction (a change on a server without transactions, an account event, a
// refused write) are written behind, in batches: one insert command per few milliseconds (or per MAX_BATCH
// entries) instead of one per entry, which is most of what the audit log costs a write. Nothing waits for
// it but a reader of the log: `flush()` before a read makes a process read its own writes. `api.close()`
// flushes what is left. A batch that fails is logged, and each of its entries with it (never the write's
// failure: the change is stored already).
import type { AuditEntry } from './audit-entry';
import type { AuditStore } from './audit-store';

/** The longest an entry waits before its batch is written. */
export const FLUSH_DELAY_MS = 50;
/** The most entries written by one command. */
const MAX_BATCH = 500;

export interface EntryQueue {
  /** Queues an entry to be stored with the next batch. */
  add(entry: AuditEntry): void;
  /** Resolves once every entry queued so far is stored (or its batch failed). */
  flush(): Promise<void>;
}

/** The positions of the entries a bulk write error says were not stored; undefined when it names none. */
function failedIndexes(error: unknown): Set<number> | undefined {
  const writeErrors = (error as { writeErrors?: unknown } | null)?.writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  const indexes = list.map((item) => (item as { index?: unknown }).index).filter((index): index is number => typeof index === 'number');
  return indexes.length ? new Set(indexes) : undefined;
}

export function createEntryQueue(store: AuditStore, stored: (entries: readonly AuditEntry[]) => void, lost: (error: unknown, entries: readonly AuditEntry[]) => void): EntryQueue {
  let queued: AuditEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** The batches being written, each settled (never rejected). */
  const writing = new Set<Promise<void>>();

  function write(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const batch = queued;
    queued = [];
    if (batch.length === 0) return Promise.resolve();
    const done = store.insertMany(batch).then(
      () => stored(batch),
      (error: unknown) => {
        // An unordered insert stores every entry it can: only those its write errors name are lost.
        const failed = failedIndexes(error);
        if (!failed) {
          lost(error, batch);
          return;
        }
        stored(batch.filter((_entry, index) => !failed.has(index)));
        lost(error, batch.filter((_entry, index) => failed.has(index)));
      },
    );
    writing.add(done);
    void done.finally(() => writing.delete(done));
    return done;
  }

  return {
    add(entry) {
      queued.push(entry);
      if (queued.length >= MAX_BATCH) void write();
      else timer ??= setTimeout(() => void write(), FLUSH_DELAY_MS);
    },
    async flush() {
      void write();
      await Promise.all([...writing]);
    },
  };
}
