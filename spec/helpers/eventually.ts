// Polls a check until it passes or a bounded wait runs out (stream events arrive "soon", not at a known
// moment): the last failure is rethrown, so a test fails with the real assertion message.
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 8000, intervalMs = 50): Promise<T> {
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
