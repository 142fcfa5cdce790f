// One attempt of one delivery: a signed POST (Standard Webhooks headers, the standardwebhooks package's
// signature), redirects not followed, bounded by the timeout from the first byte sent to the last byte read,
// the answer read up to a few KiB and kept for the log (a 2xx is delivered even if its body never ends).
// Never throws: every outcome is an attempt to record.
import type { AttemptRow } from './delivery-store';
import type { ResolvedEndpoint } from './webhook-options';

/** How much of a receiver's answer is read and kept in the log. */
export const RESPONSE_BYTES = 4096;
const USER_AGENT = 'content-router-webhooks';

export interface SendArgs {
  endpoint: ResolvedEndpoint;
  /** The webhook-id. */
  id: string;
  payload: string;
  timeoutMs: number;
  /** Aborts the attempt (the router closing). */
  signal: AbortSignal;
  /** When it is attempted (the router's clock): signed as webhook-timestamp, logged with the attempt. */
  at: Date;
}

/** The attempt, and whether it delivered (a 2xx within the timeout). */
export interface SendOutcome {
  attempt: AttemptRow;
  delivered: boolean;
}

/**
 * Reads at most RESPONSE_BYTES of the body, then lets the rest go. A body that breaks off or outlasts the
 * timeout keeps what arrived: the status already answered whether the receiver took the delivery.
 */
async function readStart(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BYTES) {
      // (The cast: Node's fetch types the body's chunks as any; they are bytes.)
      const { done, value } = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Aborted by the timeout (or close()) or cut off: what was read is kept.
  } finally {
    // The rest is not wanted: cancelling frees the connection without reading a large answer to its end.
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8');
}

/** What failed, in words for the log: the network error's own code where there is one. */
function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete answer within ${timeoutMs} ms`;
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return code ? `connection error (${code}): ${message}` : `connection error: ${message}`;
}

/** Sends the delivery once. */
export async function sendWebhook({ endpoint, id, payload, timeoutMs, signal, at }: SendArgs): Promise<SendOutcome> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(timeoutMs);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        ...endpoint.headers,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': endpoint.signer.sign(id, at, payload),
      },
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, signal]),
    });
    const text = await readStart(response);
    const attempt: AttemptRow = { at, status: response.status, durationMs: elapsed(), ...(text ? { response: text } : {}) };
    const delivered = response.status >= 200 && response.status < 300;
    if (!delivered) {
      const location = response.headers.get('location');
      attempt.error =
        response.status >= 300 && response.status < 400 ? `redirect (${response.status}${location ? ` to ${location}` : ''}) not followed` : `answered ${response.status}, not 2xx`;
    }
    return { attempt, delivered };
  } catch (error) {
    return { attempt: { at, error: describeFailure(error, timeout.aborted, timeoutMs), durationMs: elapsed() }, delivered: false };
  }
}
