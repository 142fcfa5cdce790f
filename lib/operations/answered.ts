// A request the router already answered (its deadline passed while a hook or a wait ran) must write nothing
// afterwards: the client was told 503, and a write landing later would contradict it. The operation learns it
// from its request state (RequestState.answered, set where the deadline answers), never from Express.
import { ServiceUnavailableError } from '../errors';
import { stateOf } from './request-state';
import type { OperationArgs } from './runtime';

/** Throws when the operation's request has been answered already; checked right before each write. */
export function assertUnanswered(args: Pick<OperationArgs, 'state' | 'req'>): void {
  if ((args.state || args.req) && stateOf(args).answered) throw new ServiceUnavailableError('The request was answered before its write; nothing was written.');
}
