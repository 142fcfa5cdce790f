// Whether a route has answered: its headers are out, or a feature holds its finished answer back a moment
// before it goes out (an Idempotency-Key's success is kept first). Code that answers in a route's place once
// the route returned (an object endpoint's result) asks here: res.headersSent is still false meanwhile.
import type { Response } from 'express';

const held = new WeakSet<Response>();

/** Marks `res` as answered by its route, although its answer is not sent yet. */
export function holdAnswer(res: Response): void {
  held.add(res);
}

/** True when the route has answered `res`: its headers are sent, or its answer is held back to be sent. */
export function hasAnswered(res: Response): boolean {
  return res.headersSent || held.has(res);
}
