// Runs a piece of a spec under another NODE_ENV (jest sets `test`), for behaviour that depends on it:
// what the default mailer logs, whether start-up advice is printed.

/** Runs `body` with NODE_ENV set to `value`, and puts the previous value back afterwards. */
export async function withNodeEnv<T>(value: string, body: () => Promise<T>): Promise<T> {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = value;
  try {
    return await body();
  } finally {
    process.env.NODE_ENV = previous;
  }
}
