// The cap on open realtime connections (SSE streams and WebSockets together) per client: the client is its
// user when authenticated, else its IP grouped as the rate limiter groups it. Counts live in this process.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { TooManyConnectionsError } from '../errors';
import { ipKey } from '../http/client-key';

export interface ConnectionLimit {
  /** Counts one more connection of this client, or throws TooManyConnectionsError; returns its release (idempotent). */
  acquire(req: Request, user: AuthUser | null): () => void;
}

/** Whose connection it is: a signed-in user wherever it connects from, else the address (IPv6 by /56). */
export function connectionOwner(req: Request, user: AuthUser | null): string {
  return user ? `user:${user.id}` : `ip:${ipKey(req)}`;
}

/** Creates a limit of `max` open connections per client. */
export function createConnectionLimit(max: number): ConnectionLimit {
  const open = new Map<string, number>();
  return {
    acquire(req, user) {
      const owner = connectionOwner(req, user);
      const count = open.get(owner) ?? 0;
      if (count >= max) throw new TooManyConnectionsError(max);
      open.set(owner, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(owner) ?? 1) - 1;
        if (left > 0) open.set(owner, left);
        else open.delete(owner);
      };
    },
  };
}
