// A tool call's arguments are checked for keys that could poison a prototype or smuggle a Mongo operator
// (`__proto__`, `constructor`, `prototype`, `$…`) before the SDK reads them, as REST checks its query: the
// SDK's argument validation copies objects, and a `__proto__` key vanishes in the copy, so a where under it
// would silently match every record. The refusal is the tool error REST's 400 would be, naming the argument.
import { assertSafeKeys } from '../query/safe-keys';
import type { Runtime } from '../operations/runtime';
import { isRecord } from '../util/is-record';
import { toolRefusal } from './tool-answer';
import type { Tool } from './tool';

/** The JSON-RPC answer refusing a tools/call of one of `tools` whose arguments hold such a key, else undefined. */
export function unsafeArgumentsAnswer(body: unknown, tools: readonly Tool[], runtime: Runtime): object | undefined {
  if (!isRecord(body) || body.method !== 'tools/call' || !isRecord(body.params)) return undefined;
  const { name, arguments: args } = body.params;
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool || !isRecord(args)) return undefined;
  try {
    assertSafeKeys(args, '');
  } catch (error) {
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
    return { jsonrpc: '2.0', id, result: toolRefusal(error, tool, runtime) };
  }
  return undefined;
}
