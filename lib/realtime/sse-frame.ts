// Server-Sent Events framing (the WHATWG event-stream format), pure: fields in, the text to write out.

export interface SseMessage {
  /** The `event:` name; the client's `message` event when absent. */
  event?: string;
  /** The `id:` clients send back as Last-Event-ID. */
  id?: string;
  /** Payload text; one `data:` line per line. */
  data: string;
  /** Reconnection delay the client should use, in milliseconds. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** One field name/value pair, or nothing when the value could break the framing. */
function field(name: string, value: string | undefined): string {
  // A line break would start a new field, and a NUL in an id makes clients ignore it: never sent.
  if (value === undefined || /[\r\n\0]/.test(value)) return '';
  return `${name}: ${value}\n`;
}

/** Frames one event, terminated by the blank line that dispatches it. */
export function formatSseMessage(message: SseMessage): string {
  const data = message.data
    .split(LINE_BREAK)
    .map((line) => `data: ${line}\n`)
    .join('');
  const retry = message.retry !== undefined && Number.isInteger(message.retry) && message.retry >= 0 ? `retry: ${message.retry}\n` : '';
  return `${field('event', message.event)}${field('id', message.id)}${retry}${data}\n`;
}

/** A comment line (ignored by clients; keeps proxies from timing the connection out). */
export function formatSseComment(text: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => `: ${line}\n`)
    .join('')
    .concat('\n');
}
