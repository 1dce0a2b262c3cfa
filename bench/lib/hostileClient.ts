/**
 * Hostile clients for bench/scenarios/hostile.ts: each sends one request on a raw socket, reads the first
 * kilobyte at most (enough for the status line and, mostly, the headers), and then never reads
 * again. What the server does with the connection afterwards is followed in the kernel's TCP table
 * (bench/lib/tcpTable.ts, via `observe` in bench/lib/hostile.ts), not by reading: reading would be
 * the progress the server is waiting for.
 *
 * They run in a child process (bench/lib/hostileWorker.ts, `HostileProcess` here), so that thousands
 * of sockets and the table's parsing every second do not share the event loop of the mix's load
 * client: the child sends its connections' changes over IPC, and the parent keeps a copy of them.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { type Socket, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type AttackConfig, type AttackReport, attacking } from './attacks.ts';
import { type HostileSpec, type HostileTargets, type Track, answeredWhole, hostileRequest, newTrack, observe, parseAnswerHead, socketIndex } from './hostile.ts';
import { readTcpTable } from './tcpTable.ts';

/** The one read a hostile client makes: at most this many bytes (its read buffer's size). */
const FIRST_READ = 1024;

const endpoint = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

export class HostileClients {
  readonly tracks: Track[] = [];
  private readonly sockets: Socket[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly specs: readonly HostileSpec[],
    private readonly host: string,
    private readonly port: number,
    private readonly hostHeader: string,
  ) {}

  /** Opens every client at once; resolves when each has connected and sent its request, or failed to connect. */
  async open(): Promise<void> {
    await Promise.all(this.specs.map((spec, i) => this.openOne(spec, i)));
  }

  private openOne(spec: HostileSpec, id: number): Promise<void> {
    const track = newTrack(id, spec, endpoint(this.host, this.port), performance.now());
    this.tracks.push(track);
    const first: Buffer[] = [];
    return new Promise((resolve) => {
      const socket = connect({
        host: this.host,
        port: this.port,
        ...(spec.localAddress ? { localAddress: spec.localAddress } : {}),
        // one read into a 1 KB buffer: returning false pauses the socket (libuv stops reading), so
        // everything after stays in the kernel's receive queue and then the server's send queue
        onread: {
          buffer: Buffer.alloc(FIRST_READ),
          callback: (n: number, buffer: Uint8Array): boolean => {
            const now = performance.now();
            track.readBytes += n;
            if (track.readBytes > track.received) {
              track.received = track.readBytes;
              track.lastProgressAt = now;
            }
            if (track.head !== undefined) return false;
            first.push(Buffer.from(buffer.subarray(0, n)));
            const head = parseAnswerHead(Buffer.concat(first));
            if (head === undefined) return true; // the status line is not complete yet: read on
            track.head = head;
            track.headAfterMs = now - track.openedAt;
            return false;
          },
        },
      });
      this.sockets.push(socket);
      socket.once('connect', () => {
        track.client = endpoint(socket.localAddress!, socket.localPort!);
        socket.write(hostileRequest(spec, this.hostHeader));
        resolve();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (track.client === undefined) {
          track.connectError = err.code ?? err.message;
          resolve();
        } else track.error ??= err.code ?? err.message;
      });
    });
  }

  /**
   * Looks at every connection in the kernel's table now. Without stream clients there is nothing to
   * look at, and the table is not read: with thousands of held connections (the attacks of
   * attackClients.ts) reading it every second took 6-8 % of a core of the machine the server shares.
   */
  look(now = performance.now()): void {
    if (this.tracks.length === 0) return;
    const index = socketIndex(readTcpTable());
    for (const track of this.tracks) observe(track, index, now);
  }

  /** Looks every `ms` until close(); `looked` after each look. */
  watch(ms: number, looked: () => void = () => {}): void {
    this.look();
    looked();
    this.timer = setInterval(() => {
      this.look();
      looked();
    }, ms);
  }

  /** True when nothing is left to watch: every connection closed by the server, whole-answered, or never made. */
  settled(): boolean {
    return this.tracks.every((t) => t.connectError !== undefined || t.closedAt !== undefined || answeredWhole(t));
  }

  /** Closes every client (a reset, with unread bytes in its queue) and stops watching. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const track of this.tracks) track.released = true;
    for (const socket of this.sockets) socket.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The child process that holds them

/** What the child process is given (JSON, its one argument): it makes the specs with hostileSpecs. */
export interface HostileWorkerConfig {
  targets: HostileTargets;
  ndjson: number;
  events: number;
  spread: boolean;
  host: string;
  port: number;
  hostHeader: string;
  probeMs: number;
  /** One client's attacks (bench/lib/attackClients.ts), held until the end as well. */
  attacks?: AttackConfig;
}

/** Parent to child. */
export type ToWorker = { type: 'open' } | { type: 'look' } | { type: 'report' } | { type: 'close' };

/**
 * Child to parent, in order: `ready` (with its clock's origin), then `tracks` (the connections that
 * changed since the last ones sent: after each look, and before each answer), `opened` once every
 * client connected or failed to, `looked` in answer to `look` (when, on its clock).
 */
export type FromWorker =
  | { type: 'ready'; timeOrigin: number }
  | { type: 'tracks'; tracks: Track[] }
  | { type: 'opened' }
  | { type: 'looked'; at: number }
  | { type: 'report'; report: AttackReport | undefined };

const WORKER = fileURLToPath(new URL('./hostileWorker.ts', import.meta.url));

/**
 * The hostile clients in a child process, seen from the parent: `tracks` is the copy of the child's
 * connections, their times moved to the parent's clock (performance.now()).
 */
export class HostileProcess {
  readonly tracks: Track[] = [];
  /** Why the child ended before close(), when it did. */
  failure: string | undefined;
  private shift = 0;
  private closing = false;
  private readonly waiters = new Map<string, { resolve: (m: never) => void; reject: (err: Error) => void }>();
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    /** The clients it opens. */
    private readonly count: number,
    /** Whether it holds attackers too: they stay until the end of the hold. */
    private readonly attacks: boolean,
  ) {
    child.on('message', (m: FromWorker) => this.receive(m));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        if (!this.closing) this.failure = `the hostile clients' process ended (${signal ?? `exit code ${code}`})`;
        for (const w of this.waiters.values()) w.reject(new Error(this.failure ?? 'the hostile clients\' process ended'));
        this.waiters.clear();
        resolve();
      });
    });
  }

  /** The child's pid (to sample its CPU). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Forks the child (tsx) and waits until it is ready. */
  static async start(config: HostileWorkerConfig): Promise<HostileProcess> {
    const child = fork(WORKER, [JSON.stringify(config)], { execArgv: ['--import', 'tsx'] });
    const p = new HostileProcess(child, config.ndjson + config.events, attacking(config.attacks));
    // both origins are the wall clock at each process's start: the child's times move by the difference
    p.shift = (await p.next('ready')).timeOrigin - performance.timeOrigin;
    return p;
  }

  private next<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    return new Promise((resolve, reject) => this.waiters.set(type, { resolve, reject }));
  }

  private receive(m: FromWorker): void {
    if (m.type === 'tracks') {
      // (after close() the copy stays as the last look saw it)
      if (this.closing) return;
      for (const t of m.tracks) {
        this.tracks[t.id] = {
          ...t,
          openedAt: t.openedAt + this.shift,
          lastProgressAt: t.lastProgressAt + this.shift,
          ...(t.closedAt !== undefined ? { closedAt: t.closedAt + this.shift } : {}),
        };
      }
      return;
    }
    const waiter = this.waiters.get(m.type);
    this.waiters.delete(m.type);
    waiter?.resolve(m as never);
  }

  private send(m: ToWorker): void {
    if (this.child.connected) this.child.send(m);
  }

  /** Opens every client; resolves when each has connected and sent its request, or failed to connect. The child looks every probeMs from now on. */
  async open(): Promise<void> {
    const opened = this.next('opened');
    this.send({ type: 'open' });
    await opened;
  }

  /** Has the child look at every connection now; resolves with the time of that look (the parent's clock) once its changes are here. */
  async look(): Promise<number> {
    const looked = this.next('looked');
    this.send({ type: 'look' });
    return (await looked).at + this.shift;
  }

  /** True when nothing is left to watch: every connection closed by the server, whole-answered, or never made. */
  settled(): boolean {
    return !this.attacks && this.tracks.length === this.count && this.tracks.every((t) => t.connectError !== undefined || t.closedAt !== undefined || answeredWhole(t));
  }

  /** What the attackers saw so far (undefined without attackers). */
  async report(): Promise<AttackReport | undefined> {
    const reported = this.next('report');
    this.send({ type: 'report' });
    return (await reported).report;
  }

  /** Closes every client (a reset each) and waits for the child to end (5 s, then SIGKILL). */
  async close(): Promise<void> {
    this.closing = true;
    for (const track of this.tracks) track.released = true;
    this.send({ type: 'close' });
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(killer);
  }

  /** Ends the child at once (a signal to the bench). */
  kill(): void {
    this.closing = true;
    this.child.kill('SIGKILL');
  }
}
