import type { mongo } from 'mongoose';

export interface DbCapabilities {
  transactions: boolean;
  textSearch: boolean;
  changeStreams: boolean;
  /** findOneAndUpdate/findOneAndDelete writes appear on change streams (MongoDB and the CI launcher; not plain mongo-java-server). */
  findAndModifyEvents: boolean;
  /** The explain command with executionStats (real MongoDB; not mongo-java-server). */
  explain: boolean;
  /** Collations change comparisons and sorts (real MongoDB; mongo-java-server ignores them). */
  collation: boolean;
}

export declare const CAPABILITIES_ENV: 'TEST_DB_CAPABILITIES';

export declare function probeCapabilities(
  client: mongo.MongoClient,
  db: mongo.Db,
  options?: { timeoutMs?: number; onFailure?: (feature: keyof DbCapabilities, err: unknown) => void },
): Promise<DbCapabilities>;

export declare function readCapabilitiesFromEnv(): DbCapabilities | undefined;

/**
 * Next change of `stream` (iterator mode, via tryNext), or null if none arrives within `timeoutMs`.
 * With `singleTry`, returns after one tryNext() (which also opens the stream server-side).
 */
export declare function nextChangeWithin<T extends mongo.Document>(
  stream: mongo.ChangeStream<T>,
  timeoutMs: number,
  singleTry?: boolean,
): Promise<mongo.ChangeStreamDocument<T> | null>;
