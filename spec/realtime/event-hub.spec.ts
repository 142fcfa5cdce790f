// The pure hub: fan-out by collection, subscription changes, close, and the bounded replay ring.
import { type EventHub, type HubListener, createEventHub } from '../../lib/realtime/event-hub';

interface Entry {
  event: { id: string; collection: string };
}

const entry = (id: string, collection = 'posts'): Entry => ({ event: { id, collection } });

/** Subscribes `listener` to `slugs` (each with `true` as the subscriber's value). */
function follow(hub: EventHub<Entry>, slugs: string[], listener: HubListener<Entry>) {
  const sub = hub.subscribe<boolean>(listener);
  sub.add(slugs.map((slug) => [slug, true] as const));
  return sub;
}

describe('event hub', () => {
  it('delivers an entry only to subscribers of its collection, in subscription order', () => {
    const hub = createEventHub<Entry>(10);
    const seen: string[] = [];
    follow(hub, ['posts'], { deliver: (e) => seen.push(`a:${e.event.id}`) });
    follow(hub, ['tags'], { deliver: (e) => seen.push(`b:${e.event.id}`) });
    follow(hub, ['posts', 'tags'], { deliver: (e) => seen.push(`c:${e.event.id}`) });
    hub.publish(entry('1'));
    hub.publish(entry('2', 'tags'));
    hub.publish(entry('3', 'other'));
    expect(seen).toEqual(['a:1', 'c:1', 'b:2', 'c:2']);
  });

  it('follows add and remove, and stops delivering after close (telling its listener once)', () => {
    const hub = createEventHub<Entry>(10);
    const seen: string[] = [];
    const onClose = jest.fn();
    const sub = follow(hub, [], { deliver: (e) => seen.push(e.event.id), closed: onClose });
    hub.publish(entry('1'));
    sub.add([['posts', true]]);
    hub.publish(entry('2'));
    sub.remove(['posts']);
    hub.publish(entry('3'));
    sub.add([['posts', true]]);
    expect(hub.size).toBe(1);
    sub.close();
    sub.close();
    sub.add([['posts', true]]);
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
    follow(hub, ['posts'], {
      deliver() {
        throw new Error('boom');
      },
    });
    follow(hub, ['posts'], { deliver: (e) => seen.push(e.event.id) });
    hub.publish(entry('1'));
    expect(seen).toEqual(['1']);
    expect(errors).toHaveLength(1);
  });

  it('lets a subscriber close itself while an entry is being delivered', () => {
    const hub = createEventHub<Entry>(10);
    const seen: string[] = [];
    const first = follow(hub, ['posts'], { deliver: () => first.close() });
    follow(hub, ['posts'], { deliver: (e) => seen.push(e.event.id) });
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
    follow(hub, ['posts'], { deliver: () => undefined, closed: onClose });
    hub.publish(entry('1'));
    hub.close();
    expect(onClose).toHaveBeenCalled();
    expect(hub.since('1')).toBeUndefined();
    expect(hub.size).toBe(0);
  });
});
