// Whether a route's answer has begun. Headers sent is the usual sign, but a feature may hold an ended answer
// back before it goes out (idempotency keeps a success first): it marks the response, so a route asking
// "did my handler answer?" (an object endpoint whose handler wrote through `res`) does not answer twice.
import type { Response } from 'express';

const held = new WeakSet<Response>();

/** Marks `res` as answered: its route ended it, and the answer is on its way. */
export function holdAnswer(res: Response): void {
  held.add(res);
}

/** True once `res` is answered: its headers are sent, or its ended answer is held back on its way out. */
export function answerBegun(res: Response): boolean {
  return res.headersSent || held.has(res);
}
