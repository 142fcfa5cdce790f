// SSE framing: what a spec-conforming parser (eventsource-parser) reads back from our frames.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { formatSseComment, formatSseMessage } from '../../lib/realtime/sse-frame';

function parse(text: string): { events: EventSourceMessage[]; comments: string[]; retries: number[] } {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c), onRetry: (r) => retries.push(r) });
  parser.feed(text);
  return { events, comments, retries };
}

describe('SSE framing', () => {
  it('frames event, id and data so a parser reads them back', () => {
    const text = formatSseMessage({ event: 'create', id: 'abc-1', data: '{"a":1}' });
    expect(text).toBe('event: create\nid: abc-1\ndata: {"a":1}\n\n');
    expect(parse(text).events).toEqual([{ event: 'create', id: 'abc-1', data: '{"a":1}' }]);
  });

  it('splits multi-line data into data lines, whatever the line breaks', () => {
    const { events } = parse(formatSseMessage({ data: 'one\r\ntwo\rthree\nfour' }));
    expect(events[0].data).toBe('one\ntwo\nthree\nfour');
    expect(events[0].event).toBeUndefined();
  });

  it('never lets an id or event name break the framing', () => {
    const text = formatSseMessage({ event: 'x\ndata: injected', id: 'a\nevent: evil', data: 'ok' });
    expect(text).toBe('data: ok\n\n');
    expect(formatSseMessage({ id: 'a\0b', data: 'ok' })).toBe('data: ok\n\n');
  });

  it('frames retry and comments', () => {
    expect(parse(formatSseMessage({ retry: 1500, data: 'x' })).retries).toEqual([1500]);
    expect(formatSseMessage({ retry: -1, data: 'x' })).toBe('data: x\n\n');
    const comment = formatSseComment('heartbeat');
    expect(comment).toBe(': heartbeat\n\n');
    const parsed = parse(comment + formatSseComment('a\nb'));
    expect(parsed.events).toEqual([]);
    expect(parsed.comments.map((c) => c.trim())).toEqual(['heartbeat', 'a', 'b']);
  });
});
