// A value now or later. The read path's steps (access rule, soft-delete scope, filter) are usually
// synchronous; answering them without a promise spares each request an async frame and a microtask per
// step, while a rule or relation condition that does wait still can.

export type MaybePromise<T> = T | Promise<T>;

export function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** `next(value)` now when `value` is ready, else once it settles. */
export function thenMaybe<T, U>(value: T | PromiseLike<T>, next: (ready: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromiseLike<T>(value) ? Promise.resolve(value).then(next) : next(value);
}
