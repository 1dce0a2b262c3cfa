/**
 * Hostile clients for bench/hostile.ts: each sends one request on a raw socket, reads the first
 * kilobyte at most (enough for the status line and, mostly, the headers), and then never reads
 * again. What the server does with the connection afterwards is followed in the kernel's TCP table
 * (bench/lib/tcpTable.ts, via `observe` in bench/lib/hostile.ts), not by reading: reading would be
 * the progress the server is waiting for.
 */
import { type Socket, connect } from 'node:net';
import { type HostileSpec, type Track, answeredWhole, hostileRequest, newTrack, observe, parseAnswerHead, socketIndex } from './hostile.ts';
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

  /** Looks at every connection in the kernel's table now. */
  look(now = performance.now()): void {
    const index = socketIndex(readTcpTable());
    for (const track of this.tracks) observe(track, index, now);
  }

  /** Looks every `ms` until close(). */
  watch(ms: number): void {
    this.look();
    this.timer = setInterval(() => this.look(), ms);
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
