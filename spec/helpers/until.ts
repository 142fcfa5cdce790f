// Waits for a condition the code under test brings about in its own time (a key settled, a row written),
// polling it, with a deadline so a condition that never comes fails the test instead of hanging it.
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
