// The in-process fan-out of realtime events: subscriptions by collection, and a bounded ring of recent
// events for clients resuming with Last-Event-ID. Pure: no I/O, no timers; transports do the sending.

/** What the hub needs to know of an entry. */
export interface HubItem {
  readonly event: { readonly id: string; readonly collection: string };
}

/** Who receives a subscription's entries: an object (a client), so a subscription costs no closures. */
export interface HubListener<T> {
  deliver(entry: T): void;
  /** Called once, when the subscription closes. */
  closed?(): void;
}

/**
 * One client's interest in a set of collections, each with the client's own value for it (a reader's
 * matcher), kept here so a client needs no second map beside it.
 */
export interface HubSubscription<V> {
  readonly collections: ReadonlyMap<string, V>;
  /** Follows (or replaces the value of) each collection. */
  add(entries: Iterable<readonly [string, V]>): void;
  remove(slugs: Iterable<string>): void;
  /** Stops delivery; idempotent. */
  close(): void;
}

export interface EventHub<T extends HubItem> {
  /** Delivers every later entry of the subscription's collections (none at first) to `listener`. */
  subscribe<V>(listener: HubListener<T>): HubSubscription<V>;
  /** Remembers the entry for replay and hands it to every subscriber of its collection, in subscription order. */
  publish(entry: T): void;
  /** The entries published after the one with this id, oldest first; undefined when that id is not remembered. */
  since(id: string): T[] | undefined;
  /** Number of open subscriptions. */
  readonly size: number;
  /** Closes every subscription (each listener's closed runs) and forgets the replay ring. */
  close(): void;
}

/** The hub's index of open subscriptions, which a subscription updates itself. */
interface Index<T> {
  readonly bySlug: Map<string, Set<Subscription<T, unknown>>>;
  readonly all: Set<Subscription<T, unknown>>;
}

/** A class, not an object of closures: thousands of idle clients each hold one. */
class Subscription<T, V> implements HubSubscription<V> {
  readonly collections = new Map<string, V>();
  private open = true;

  constructor(
    private readonly index: Index<T>,
    readonly listener: HubListener<T>,
  ) {}

  add(entries: Iterable<readonly [string, V]>): void {
    if (!this.open) return;
    for (const [slug, value] of entries) {
      this.collections.set(slug, value);
      let set = this.index.bySlug.get(slug);
      if (!set) this.index.bySlug.set(slug, (set = new Set()));
      set.add(this);
    }
  }

  remove(slugs: Iterable<string>): void {
    for (const slug of slugs) {
      this.collections.delete(slug);
      const set = this.index.bySlug.get(slug);
      if (!set) continue;
      set.delete(this);
      if (set.size === 0) this.index.bySlug.delete(slug);
    }
  }

  close(): void {
    if (!this.open) return;
    this.remove([...this.collections.keys()]);
    this.open = false;
    this.index.all.delete(this);
    this.listener.closed?.();
  }
}

/**
 * Creates a hub remembering the last `replay` entries. A listener that throws is reported to `onError`
 * and the others still receive the entry.
 */
export function createEventHub<T extends HubItem>(replay: number, onError: (error: unknown) => void = () => undefined): EventHub<T> {
  const index: Index<T> = { bySlug: new Map(), all: new Set() };
  const ring: T[] = [];
  let head = 0; // index of the oldest entry once the ring is full

  return {
    subscribe<V>(listener: HubListener<T>) {
      const sub = new Subscription<T, V>(index, listener);
      index.all.add(sub);
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
      const set = index.bySlug.get(entry.event.collection);
      if (!set) return;
      // A copy: a listener may close its own (or another) subscription.
      for (const sub of [...set]) {
        try {
          sub.listener.deliver(entry);
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
      return index.all.size;
    },
    close() {
      for (const sub of [...index.all]) sub.close();
      ring.length = 0;
      head = 0;
    },
  };
}
