// A TCP proxy for outage tests: a client connects to the proxy, which pipes bytes to the real server.
// stop() is a server going away as a driver sees it (open connections reset, new ones refused); resume() comes
// back; hold() is a server that keeps connections open but answers nothing until release(); `latencyMs` is a
// slow server (or network): every answer arrives that much later.
import net from 'node:net';

/** A running proxy in front of one host:port. */
export interface TcpProxy {
  /** The port the proxy listens on (on 127.0.0.1); the same one again after resume(). */
  readonly port: number;
  /** Resets every open connection (both sides) and stops accepting: new connections are refused. */
  stop(): Promise<void>;
  /** Accepts connections again on the same port. */
  resume(): Promise<void>;
  /** Stops passing the client's bytes on (connections stay open, nothing is answered); they wait in the proxy. */
  hold(): void;
  /** Passes on what waited during hold(), and everything after. */
  release(): void;
  /** Stops for good. */
  close(): Promise<void>;
}

/** `host:port` of the first host of a mongodb:// URI (the proxy's target). */
export function parseMongoHost(uri: string): { host: string; port: number } {
  const match = /^mongodb:\/\/(?:[^@/]*@)?([^,/?]+)/.exec(uri);
  if (!match) throw new Error(`not a mongodb:// URI with a host: ${uri}`);
  const [host, port] = match[1].startsWith('[') ? [match[1].slice(1, match[1].indexOf(']')), match[1].split(']:')[1]] : match[1].split(':');
  return { host, port: Number(port ?? 27017) };
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** Starts a proxy to `target` on a free port (or `port`); `latencyMs` delays every chunk the server sends back. */
export async function startTcpProxy(target: { host: string; port: number }, port = 0, options: { latencyMs?: number } = {}): Promise<TcpProxy> {
  const latencyMs = options.latencyMs ?? 0;
  const sockets = new Set<net.Socket>();
  /** Each client socket and the upstream its bytes go to. */
  const pairs = new Map<net.Socket, net.Socket>();
  let server: net.Server | undefined;
  let held = false;

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset is the point of stop(); errors are expected and must not crash the test process.
    socket.on('error', () => undefined);
  };

  const open = async (atPort: number) => {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      track(client);
      track(upstream);
      pairs.set(client, upstream);
      client.on('close', () => pairs.delete(client));
      if (held) client.pause();
      else client.pipe(upstream);
      if (latencyMs > 0) {
        // Timers of one delay fire in the order they were set: the bytes keep their order.
        upstream.on('data', (chunk: Buffer) => void setTimeout(() => client.destroyed || client.write(chunk), latencyMs));
      } else {
        upstream.pipe(client);
      }
      // One side gone: the other is reset too, so neither half lingers.
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    return listen(server, atPort);
  };

  const actualPort = await open(port);

  const shut = async () => {
    const closing = server;
    server = undefined;
    // resetAndDestroy sends RST (as a crashed server's kernel would), not an orderly FIN.
    for (const socket of sockets) {
      try {
        socket.resetAndDestroy();
      } catch {
        socket.destroy();
      }
    }
    sockets.clear();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  return {
    port: actualPort,
    stop: shut,
    async resume() {
      if (!server) await open(actualPort);
    },
    hold() {
      held = true;
      for (const client of pairs.keys()) {
        client.unpipe();
        client.pause();
      }
    },
    release() {
      held = false;
      for (const [client, upstream] of pairs) client.pipe(upstream);
    },
    close: shut,
  };
}
