// The in-process fan-out of realtime events: subscriptions by collection, and a bounded ring of recent
// events for clients resuming with Last-Event-ID. Pure: no I/O, no timers; transports do the sending.

/** What the hub needs to know of an entry. */
export interface HubItem {
  readonly event: { readonly id: string; readonly collection: string };
}

/** One client's interest in a set of collections. */
export interface HubSubscription {
  readonly collections: ReadonlySet<string>;
  add(slugs: Iterable<string>): void;
  remove(slugs: Iterable<string>): void;
  /** Stops delivery; idempotent. */
  close(): void;
}

export interface EventHub<T extends HubItem> {
  /** Delivers every later entry of `collections` (changeable through the subscription) to `deliver`. */
  subscribe(collections: Iterable<string>, deliver: (entry: T) => void, onClose?: () => void): HubSubscription;
  /** Remembers the entry for replay and hands it to every subscriber of its collection, in subscription order. */
  publish(entry: T): void;
  /** The entries published after the one with this id, oldest first; undefined when that id is not remembered. */
  since(id: string): T[] | undefined;
  /** Number of open subscriptions. */
  readonly size: number;
  /** Closes every subscription (each onClose runs) and forgets the replay ring. */
  close(): void;
}

/**
 * Creates a hub remembering the last `replay` entries. A deliver function that throws is reported to
 * `onError` and the others still receive the entry.
 */
export function createEventHub<T extends HubItem>(replay: number, onError: (error: unknown) => void = () => undefined): EventHub<T> {
  const bySlug = new Map<string, Set<Subscriber>>();
  const all = new Set<Subscriber>();
  const ring: T[] = [];
  let head = 0; // index of the oldest entry once the ring is full

  interface Subscriber extends HubSubscription {
    deliver(entry: T): void;
  }

  function index(sub: Subscriber, slug: string): void {
    let set = bySlug.get(slug);
    if (!set) bySlug.set(slug, (set = new Set()));
    set.add(sub);
  }

  function unindex(sub: Subscriber, slug: string): void {
    const set = bySlug.get(slug);
    if (!set) return;
    set.delete(sub);
    if (set.size === 0) bySlug.delete(slug);
  }

  return {
    subscribe(collections, deliver, onClose) {
      const slugs = new Set<string>();
      let open = true;
      const sub: Subscriber = {
        collections: slugs,
        deliver,
        add(more) {
          if (!open) return;
          for (const slug of more) {
            slugs.add(slug);
            index(sub, slug);
          }
        },
        remove(less) {
          for (const slug of less) {
            slugs.delete(slug);
            unindex(sub, slug);
          }
        },
        close() {
          if (!open) return;
          open = false;
          for (const slug of slugs) unindex(sub, slug);
          slugs.clear();
          all.delete(sub);
          onClose?.();
        },
      };
      all.add(sub);
      sub.add(collections);
      return sub;
    },
    publish(entry) {
      if (replay > 0) {
        if (ring.length < replay) ring.push(entry);
        else {
          ring[head] = entry;
          head = (head + 1) % replay;
        }
      }
      const set = bySlug.get(entry.event.collection);
      if (!set) return;
      // A copy: a deliver function may close its own (or another) subscription.
      for (const sub of [...set]) {
        try {
          sub.deliver(entry);
        } catch (error) {
          onError(error);
        }
      }
    },
    since(id) {
      const ordered = ring.length < replay ? ring : [...ring.slice(head), ...ring.slice(0, head)];
      const at = ordered.findIndex((entry) => entry.event.id === id);
      return at === -1 ? undefined : ordered.slice(at + 1);
    },
    get size() {
      return all.size;
    },
    close() {
      for (const sub of [...all]) sub.close();
      ring.length = 0;
      head = 0;
    },
  };
}
