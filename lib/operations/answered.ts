// A request the router already answered (its deadline passed while a hook or a wait ran) must write nothing
// afterwards: the client was told 503, and a write landing later would contradict it.
import { ServiceUnavailableError } from '../errors';
import type { OperationArgs } from './runtime';

/** Throws when the operation's request has been answered already; checked right before each write. */
export function assertUnanswered(args: Pick<OperationArgs, 'req'>): void {
  if (args.req?.res?.headersSent) throw new ServiceUnavailableError('The request was answered before its write; nothing was written.');
}
