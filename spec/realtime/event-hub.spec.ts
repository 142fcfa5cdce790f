// The pure hub: fan-out by collection, subscription changes, close, and the bounded replay ring.
import { createEventHub } from '../../lib/realtime/event-hub';

interface Entry {
  event: { id: string; collection: string };
}

const entry = (id: string, collection = 'posts'): Entry => ({ event: { id, collection } });

describe('event hub', () => {
  it('delivers an entry only to subscribers of its collection, in subscription order', () => {
    const hub = createEventHub<Entry>(10);
    const seen: string[] = [];
    hub.subscribe(['posts'], (e) => seen.push(`a:${e.event.id}`));
    hub.subscribe(['tags'], (e) => seen.push(`b:${e.event.id}`));
    hub.subscribe(['posts', 'tags'], (e) => seen.push(`c:${e.event.id}`));
    hub.publish(entry('1'));
    hub.publish(entry('2', 'tags'));
    hub.publish(entry('3', 'other'));
    expect(seen).toEqual(['a:1', 'c:1', 'b:2', 'c:2']);
  });

  it('follows add and remove, and stops delivering after close (calling onClose once)', () => {
    const hub = createEventHub<Entry>(10);
    const seen: string[] = [];
    const onClose = jest.fn();
    const sub = hub.subscribe([], (e) => seen.push(e.event.id), onClose);
    hub.publish(entry('1'));
    sub.add(['posts']);
    hub.publish(entry('2'));
    sub.remove(['posts']);
    hub.publish(entry('3'));
    sub.add(['posts']);
    expect(hub.size).toBe(1);
    sub.close();
    sub.close();
    sub.add(['posts']);
    hub.publish(entry('4'));
    expect(seen).toEqual(['2']);
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(hub.size).toBe(0);
    expect([...sub.collections]).toEqual([]);
  });

  it('keeps delivering to others when one subscriber throws, and reports the error', () => {
    const errors: unknown[] = [];
    const hub = createEventHub<Entry>(10, (e) => errors.push(e));
    const seen: string[] = [];
    hub.subscribe(['posts'], () => {
      throw new Error('boom');
    });
    hub.subscribe(['posts'], (e) => seen.push(e.event.id));
    hub.publish(entry('1'));
    expect(seen).toEqual(['1']);
    expect(errors).toHaveLength(1);
  });

  it('lets a subscriber close itself while an entry is being delivered', () => {
    const hub = createEventHub<Entry>(10);
    const seen: string[] = [];
    const first = hub.subscribe(['posts'], () => first.close());
    hub.subscribe(['posts'], (e) => seen.push(e.event.id));
    hub.publish(entry('1'));
    hub.publish(entry('2'));
    expect(seen).toEqual(['1', '2']);
  });

  it('replays what came after a remembered id, and nothing for an id it no longer (or never) had', () => {
    const hub = createEventHub<Entry>(3);
    for (const id of ['1', '2', '3', '4', '5']) hub.publish(entry(id, id === '4' ? 'tags' : 'posts'));
    expect(hub.since('3')?.map((e) => e.event.id)).toEqual(['4', '5']);
    expect(hub.since('5')).toEqual([]);
    expect(hub.since('2')).toBeUndefined();
    expect(hub.since('garbage')).toBeUndefined();
  });

  it('remembers nothing with a replay size of 0, and forgets everything on close', () => {
    const none = createEventHub<Entry>(0);
    none.publish(entry('1'));
    expect(none.since('1')).toBeUndefined();
    const hub = createEventHub<Entry>(5);
    const onClose = jest.fn();
    hub.subscribe(['posts'], () => undefined, onClose);
    hub.publish(entry('1'));
    hub.close();
    expect(onClose).toHaveBeenCalled();
    expect(hub.since('1')).toBeUndefined();
    expect(hub.size).toBe(0);
  });
});
