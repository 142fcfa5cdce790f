// Where a connection points, for a log line: scheme, hosts and database name; never credentials or options
// (a URI's user and password, or an option such as a TLS key password, must not reach a log).
import type { Connection } from 'mongoose';

/** `mongodb://host:port,host:port/db` (or `mongodb+srv://host/db`) of the connection, or undefined when unknown. */
export function databaseAddress(connection: Connection): string | undefined {
  let options: { hosts?: readonly unknown[]; srvHost?: string; dbName?: string } | undefined;
  try {
    // Read from the driver's parsed options, never from the URI text the host wrote.
    // (The cast: mongoose types the client as always there; it is undefined until the connection is opened.)
    options = (connection.getClient() as ReturnType<Connection['getClient']> | undefined)?.options;
  } catch {
    return undefined;
  }
  if (!options) return undefined;
  const db = connection.name || options.dbName || '';
  if (options.srvHost) return `mongodb+srv://${options.srvHost}/${db}`;
  const hosts = (options.hosts ?? []).map(String).join(',');
  return hosts ? `mongodb://${hosts}/${db}` : undefined;
}
