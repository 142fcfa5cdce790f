import type { mongo } from 'mongoose';

export declare const PREFIX_ENV: 'TEST_DB_PREFIX';
export declare const RUN_ENV: 'TEST_DB_RUN';
/** TEST_DB_PREFIX (default `cr`), checked; throws if it cannot start a database name. */
export declare function runPrefix(env?: NodeJS.ProcessEnv): string;
/** The id of a run whose jest process on this machine has the pid `pid`: `<host>_<pid>`. */
export declare function runIdOf(pid: number): string;
/** This run's id (TEST_DB_RUN, set by the global setup), else this process's. */
export declare function runId(env?: NodeJS.ProcessEnv): string;
/** `<prefix>_<run>_`: the start of every database name of a run. */
export declare function runStem(run?: string, prefix?: string): string;
/** Of `names`, those that runs of this machine with this prefix left behind (their process is gone). */
export declare function leftoverDatabases(names: string[], prefix?: string, self?: string): string[];
/** Drops the databases killed runs left; returns their names. */
export declare function dropLeftovers(client: mongo.MongoClient, prefix?: string, self?: string): Promise<string[]>;
/** Drops every database of the run `run` (this one by default); returns their names. */
export declare function dropRunDatabases(client: mongo.MongoClient, run?: string, prefix?: string): Promise<string[]>;
