// The one way specs wait. Code under test brings things about in its own time (a stream event arrives "soon",
// a row is written after the answer): a spec waits for the condition itself, never for a fixed time.
// - eventually(check): retries a throwing check (an expect) until it passes; the last failure is rethrown, so a
//   condition that never comes fails with the real assertion message instead of hanging the test.
// - until(check): waits for a truthy answer (a yes, a found row or event) and resolves with it.
// - quietFor(ms): the one fixed wait, for a spec that asserts something does NOT happen ("no second event"),
//   or for a scenario that itself lasts a set time (an outage of 4 s). Nothing can end such a wait early: it is
//   as long as the behaviour under test could take to show, and named so that a reader sees it is deliberate.

/** Polls `check` until it resolves (or returns), or rethrows its last failure after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 8000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/**
 * Polls `check` until it returns something truthy (a yes, a found row, an event), and resolves with that; a
 * check may also throw while not yet. After `timeoutMs` it fails with the check's last error, or names `what`.
 */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>; // (a truthy value is not null or undefined)
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw last ?? new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Lets `ms` pass, so that a spec can then assert something did not happen (or a scenario lasts its set time).
 * Anything a spec expects to happen is waited for with eventually/until.
 */
export function quietFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
