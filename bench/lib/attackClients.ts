/**
 * One client's attacks (issue 58), run in the hostile bench's child process (bench/lib/hostileWorker.ts)
 * beside its streamed-answer clients: idle connections and slowloris ones from one address that
 * reconnect when the server closes them, slow NDJSON readers that read at a given rate, and a
 * readiness probe every few hundred ms on a new connection from another address. What they saw is
 * summed up by bench/lib/attacks.ts.
 */
import { request } from 'node:http';
import { type Socket, connect } from 'node:net';
import {
  type AttackConfig,
  type AttackReport,
  type HeldConnection,
  type Probe,
  type SlowReader,
  attackReport,
  cutOf,
  endingOf,
  readChunk,
  readDelayMs,
  readerRequest,
  slowlorisLine,
  slowlorisStart,
  statusOf,
} from './attacks.ts';
import { readTcpTable } from './tcpTable.ts';

const endpoint = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

export class Attacks {
  private readonly held: HeldConnection[] = [];
  private readonly readers: SlowReader[] = [];
  private readonly probes: Probe[] = [];
  private readonly sockets = new Set<Socket>();
  /** The open readers' connections as the kernel's table names them (`client>server`), and how to end each. */
  private readonly readerEnds = new Map<SlowReader, { key: string; end: (ended: SlowReader['ended']) => void }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private running = false;
  private connects = 0;
  private start = 0;

  constructor(
    private readonly config: AttackConfig,
    private readonly host: string,
    private readonly port: number,
    private readonly hostHeader: string,
  ) {}

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.running) run();
    }, ms);
    this.timers.add(timer);
  }

  private socket(): Socket {
    const socket = connect({ host: this.host, port: this.port, ...(this.config.address ? { localAddress: this.config.address } : {}) });
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  /** Opens every attacker at once; resolves when the first connection of each held place and every reader has connected or failed. */
  async open(): Promise<void> {
    this.running = true;
    this.start = performance.now();
    const c = this.config;
    if (c.readinessMs > 0) {
      this.probe();
      const timer = setInterval(() => this.probe(), c.readinessMs);
      this.timers.add(timer);
    }
    if (c.slowReaders > 0) {
      const timer = setInterval(() => this.lookAtReaders(), 1000);
      this.timers.add(timer);
    }
    const first: Array<Promise<void>> = [];
    for (let i = 0; i < c.idle; i++) first.push(this.hold('idle'));
    for (let i = 0; i < c.slowloris; i++) first.push(this.hold('slowloris'));
    for (const rate of c.slowReaders > 0 ? c.readRates : []) for (let i = 0; i < c.slowReaders; i++) first.push(this.read(rate));
    await Promise.all(first);
  }

  /**
   * One place of an idle or slowloris attacker: a connection, and once the server closes it another
   * after reconnectMs, until close() or maxConnects. Resolves when the first has connected or failed.
   */
  private hold(kind: 'idle' | 'slowloris'): Promise<void> {
    return new Promise((resolve) => {
      if (!this.running || this.connects >= this.config.maxConnects) return resolve();
      this.connects++;
      const conn: HeldConnection = { kind, openedAt: performance.now() };
      this.held.push(conn);
      const socket = this.socket();
      let connected = false;
      let head = Buffer.alloc(0);
      let line = 0;
      const end = (ended: HeldConnection['ended']) => {
        // (closed by the bench itself: still open as far as the server is concerned)
        if (conn.ended !== undefined || !this.running) return;
        conn.ended = ended;
        conn.endedAt = performance.now();
        socket.destroy();
        resolve();
        // as a real attacker would: the place is taken again
        if (this.running) this.later(this.config.reconnectMs, () => void this.hold(kind));
      };
      socket.once('connect', () => {
        connected = true;
        resolve();
        if (kind === 'idle') return;
        socket.write(slowlorisStart(this.config.readerPath, this.hostHeader));
        const next = () => {
          if (socket.destroyed) return;
          socket.write(slowlorisLine(++line));
          this.later(this.config.slowlorisEveryMs, next);
        };
        this.later(this.config.slowlorisEveryMs, next);
      });
      socket.on('data', (bytes: Buffer) => {
        if (conn.status !== undefined || head.length >= 64) return;
        head = Buffer.concat([head, bytes]);
        const status = statusOf(head);
        if (status !== undefined) conn.status = status;
      });
      socket.on('end', () => end('fin'));
      socket.on('error', (err: NodeJS.ErrnoException) => end(endingOf(err.code, connected)));
      socket.on('close', () => end('fin'));
    });
  }

  /** Ends the readers whose connection the server closed, as the kernel's table shows (cutOf). */
  private lookAtReaders(): void {
    if (this.readerEnds.size === 0) return;
    const table = new Map(readTcpTable().map((t) => [`${t.local}>${t.remote}`, t]));
    for (const { key, end } of [...this.readerEnds.values()]) {
      const cut = cutOf(table.get(key));
      if (cut !== undefined) end(cut);
    }
  }

  /** One slow reader at `rate` bytes/s: reads its listing at that rate until the server cuts it or close(). */
  private read(rate: number): Promise<void> {
    return new Promise((resolve) => {
      const reader: SlowReader = { rate, openedAt: performance.now(), bytes: 0 };
      this.readers.push(reader);
      let connected = false;
      let head = Buffer.alloc(0);
      const end = (ended: SlowReader['ended']) => {
        if (reader.ended !== undefined || !this.running) return;
        this.readerEnds.delete(reader);
        reader.ended = ended;
        reader.endedAt = performance.now();
        socket.destroy();
        resolve();
      };
      const socket = connect({
        host: this.host,
        port: this.port,
        ...(this.config.address ? { localAddress: this.config.address } : {}),
        onread: {
          buffer: Buffer.alloc(readChunk(rate)),
          callback: (n: number, buffer: Uint8Array): boolean => {
            reader.bytes += n;
            reader.lastReadAt = performance.now();
            if (reader.status === undefined && head.length < 64) {
              head = Buffer.concat([head, buffer.subarray(0, n)]);
              reader.status = statusOf(head);
            }
            // paused after each read, resumed when the rate allows the next
            this.later(readDelayMs(n, rate), () => socket.resume());
            return false;
          },
        },
      });
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.once('connect', () => {
        connected = true;
        this.readerEnds.set(reader, { key: `${endpoint(socket.localAddress!, socket.localPort!)}>${endpoint(this.host, this.port)}`, end });
        socket.write(readerRequest(this.config.readerPath, this.hostHeader));
        resolve();
      });
      socket.on('end', () => end('fin'));
      socket.on('error', (err: NodeJS.ErrnoException) => end(endingOf(err.code, connected)));
      socket.on('close', () => end('fin'));
    });
  }

  /** One readiness probe on a connection of its own. */
  private probe(): void {
    const at = performance.now();
    let recorded = false;
    const done = (result: { status: number } | { error: string }) => {
      if (recorded || !this.running) return;
      recorded = true;
      this.probes.push({ at, ms: performance.now() - at, ...result });
    };
    const req = request(
      {
        host: this.host,
        port: this.config.probePort ?? this.port,
        path: '/health/readiness',
        agent: false,
        headers: { host: this.hostHeader, connection: 'close' },
        timeout: this.config.probeTimeoutMs,
        ...(this.config.probeAddress ? { localAddress: this.config.probeAddress } : {}),
      },
      (res) => {
        res.resume();
        res.once('end', () => done({ status: res.statusCode ?? 0 }));
        res.once('error', (err: NodeJS.ErrnoException) => done({ error: `error ${err.code ?? err.message}` }));
      },
    );
    req.once('timeout', () => {
      done({ error: 'timeout' });
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => done({ error: `error ${err.code ?? err.message}` }));
    req.end();
  }

  /** What the attackers saw, now. */
  report(): AttackReport {
    return attackReport(this.config, this.held, this.readers, this.probes, this.start, performance.now());
  }

  /** Stops every attacker and probe (their connections destroyed). */
  close(): void {
    this.running = false;
    for (const timer of this.timers) {
      clearTimeout(timer);
      clearInterval(timer);
    }
    this.timers.clear();
    for (const socket of this.sockets) socket.destroy();
  }
}
