/**
 * A TCP proxy to play network faults between the service and PostgreSQL (tests and
 * bench/faults.ts): `cut()` stops forwarding in both directions without closing anything, as a
 * network that drops packets does (the peers see silence, not a reset; connections opened while
 * cut get no answer either); `heal()` forwards again, what was held back included; `reset()`
 * destroys every connection (a refused network); `close()` ends it all.
 */
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket | undefined;
}

export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<Pair>();
  #cut = false;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A proxy to the host and port of a postgres:// URL. */
  static to(url: string): TcpProxy {
    const u = new URL(url);
    return new TcpProxy(u.hostname || '127.0.0.1', Number(u.port || 5432));
  }

  /** True between cut() and heal(). */
  get isCut(): boolean {
    return this.#cut;
  }

  /** Open connections (client side). */
  get connections(): number {
    return this.pairs.size;
  }

  /** Listens on 127.0.0.1 (`port` 0: any free port); resolves with the port. */
  async listen(port = 0): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** The local ports of the connections to the target: what PostgreSQL sees as their client_port. */
  upstreamPorts(): number[] {
    const ports: number[] = [];
    for (const pair of this.pairs) if (pair.upstream?.localPort !== undefined) ports.push(pair.upstream.localPort);
    return ports;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string, port: number): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  }

  cut(): void {
    this.#cut = true;
    for (const pair of this.pairs) {
      pair.client.pause();
      pair.upstream?.pause();
    }
  }

  heal(): void {
    this.#cut = false;
    for (const pair of this.pairs) {
      if (!pair.upstream) this.connectUpstream(pair);
      pair.client.resume();
      pair.upstream?.resume();
    }
  }

  /** Destroys every open connection (the proxy keeps accepting). */
  reset(): void {
    for (const pair of this.pairs) this.drop(pair);
  }

  async close(): Promise<void> {
    this.reset();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined };
    this.pairs.add(pair);
    client.on('error', () => this.drop(pair)).on('close', () => this.drop(pair));
    if (this.isCut) client.pause();
    else this.connectUpstream(pair);
  }

  private connectUpstream(pair: Pair): void {
    const upstream = connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => this.drop(pair)).on('close', () => this.drop(pair));
    this.forward(pair.client, upstream);
    this.forward(upstream, pair.client);
    if (this.isCut) upstream.pause();
  }

  /** Copies `from` to `to` with flow control; nothing moves while cut. */
  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (!to.write(chunk)) from.pause();
    });
    to.on('drain', () => {
      if (!this.isCut) from.resume();
    });
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.destroy();
    pair.upstream?.destroy();
  }
}
