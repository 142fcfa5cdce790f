// Waits for a condition the code under test brings about in its own time (a key settled, a row written):
// `eventually` with a yes-or-no check, so a condition that never comes fails the test instead of hanging it.
import { eventually } from './eventually';

export function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  return eventually(
    async () => {
      if (!(await check())) throw new Error('condition not reached');
    },
    ms,
    10,
  );
}
