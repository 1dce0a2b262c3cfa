/**
 * Connections whose client takes its answer too slowly are closed (server.stallTimeout,
 * server.stallMinRate): a page, an NDJSON listing or an event stream whose bytes wait in the process
 * while its client takes fewer than `minRate` bytes a second of them. Without this, a client that
 * stops reading holds its answer's bytes, and a stream its place, for as long as TCP keeps the
 * connection open (zero-window probes: forever).
 *
 * Once a second (or a quarter of the timeout, if shorter) every open connection is looked at; one
 * with no bytes waiting (its socket's writableLength) is never judged (idle keep-alive connections,
 * quiet streams). One with bytes waiting makes progress the socket can show when fewer wait than at
 * the last look or when its socket drains. Past half the timeout without such progress, what its
 * client took is asked of the kernel (tcpAcked.ts: bytes acknowledged, Linux's /proc; one read for
 * every connection due), and again every half timeout. From the first reading the client has the
 * timeout; every byte it takes after that buys 1/`minRate` s more; a client whose time has run out
 * is reset (RST: its unsent bytes are dropped by the kernel too). So a client that takes nothing is
 * reset 1.5 timeouts after its socket last showed progress, one that takes bytes at the floor or
 * above never is, and one that takes them in large steps (a receiver opens its window a segment at a
 * time: up to 64 KB on loopback) is judged by its average, not by each half timeout. Once the
 * kernel is asked, only what the client took counts: the socket's drains are the kernel's doing, and
 * a connection stays judged while the kernel holds bytes for it, even when none wait in the process
 * (a writer that waits for its client before writing more). Where the kernel
 * cannot tell (not Linux), a connection without progress the socket shows for the whole timeout is
 * reset.
 *
 * A protocol that learns of the client's reads itself tells the watch (tookBytes: a WebSocket's
 * pongs, wsWriter.ts). Counted in `http_stalled_connections_closed_total`, logged once per LOG_EVERY_MS.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { type Acked, type AckedReader, procAcked } from './tcpAcked.ts';

const LOG_EVERY_MS = 10_000;

/** Per watched socket: marks it as making progress now. */
const progressOf = new WeakMap<Socket, () => void>();

/** Tells the watch that `socket`'s client took bytes now, which the socket cannot show (no-op when unwatched). */
export function tookBytes(socket: Socket): void {
  progressOf.get(socket)?.();
}

interface Waiting {
  bytes: number;
  /** When the socket last showed progress. */
  since: number;
  onDrain: () => void;
  /** The last reading of what the client took (tcpAcked.ts), once the socket showed none for half the timeout. */
  taken?: { at: number; bytes: number };
  /** Until when the client's taking has paid (from the first reading: the timeout, then 1/minRate s a byte). */
  paidUntil?: number;
}

export interface StallWatchOptions {
  /** server.stallTimeout, ms; 0: off. */
  timeoutMs: number;
  /** server.stallMinRate: bytes a second a client must take while bytes wait for it. */
  minRate: number;
  registry: Registry;
  logger: Logger | false;
  /** ms on a monotonic clock (tests give their own). */
  now?: () => number;
  /** What the clients took, from the kernel (tests give their own). */
  acked?: AckedReader;
}

export interface StallWatch {
  /** Closed connections so far. */
  readonly closed: number;
  /** One look at every connection (the timer's; tests call it with their own clock). */
  sweep(): void;
  stop(): void;
}

export function watchStalls(server: Server, { timeoutMs, minRate, registry, logger, now = () => performance.now(), acked = procAcked }: StallWatchOptions): StallWatch {
  const counter = new Counter({ name: 'http_stalled_connections_closed_total', help: 'Connections closed because their client took under server.stallMinRate bytes/s of their answer (judged over server.stallTimeout)', registers: [registry] });
  const watch = { closed: 0, sweep: () => {}, stop: () => {} };
  if (timeoutMs <= 0) return watch;
  const sockets = new Set<Socket>();
  const waiting = new Map<Socket, Waiting>();
  let unlogged = 0;
  let lastLog = -Infinity;

  const forget = (socket: Socket) => {
    const entry = waiting.get(socket);
    if (entry === undefined) return;
    socket.off('drain', entry.onDrain);
    waiting.delete(socket);
  };
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    progressOf.set(socket, () => {
      const entry = waiting.get(socket);
      if (entry !== undefined) {
        entry.since = now();
        delete entry.taken;
        delete entry.paidUntil;
      }
    });
    socket.once('close', () => {
      sockets.delete(socket);
      forget(socket);
    });
  });

  const reset = (socket: Socket) => {
    forget(socket);
    if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.destroy();
    watch.closed++;
    counter.inc();
    unlogged++;
  };
  const half = timeoutMs / 2;
  /** Whether the kernel tells what clients took here; undefined until a reading answers. */
  let told: boolean | undefined;
  let reading = false;
  /** Judges the connections due by what their clients took (a reading of the kernel's, at `at`). */
  const judge = (due: Socket[], readings: Map<Socket, Acked> | undefined, at: number) => {
    told = readings !== undefined;
    for (const socket of due) {
      const entry = waiting.get(socket);
      const reading = readings?.get(socket);
      if (entry === undefined || socket.destroyed) continue;
      if (reading === undefined) {
        if (at - entry.since >= timeoutMs) reset(socket);
        continue;
      }
      if (reading.unacked === 0 && socket.writableLength === 0) {
        forget(socket); // its client has every byte
        continue;
      }
      const last = entry.taken;
      entry.taken = { at, bytes: reading.taken };
      if (last === undefined) {
        entry.paidUntil = at + timeoutMs;
        continue;
      }
      const took = reading.taken - last.bytes;
      // what it took pays for its time, counted from what it had paid for: a client behind stays behind
      if (took > 0) entry.paidUntil = (entry.paidUntil ?? at) + (minRate > 0 ? (took * 1000) / minRate : Infinity);
      if (at >= (entry.paidUntil ?? at)) reset(socket);
    }
  };

  const sweep = () => {
    const at = now();
    const due: Socket[] = [];
    for (const socket of sockets) {
      const bytes = socket.writableLength;
      const entry = waiting.get(socket);
      if (socket.destroyed || (bytes === 0 && entry?.taken === undefined)) {
        forget(socket);
        continue;
      }
      if (bytes === 0) {
        // under the kernel's watch: its bytes may wait there instead (a writer that waits for the
        // client before it writes more); judged until a reading finds its client has them all
        if (at - entry!.taken!.at >= half) due.push(socket);
        continue;
      }
      if (entry === undefined) {
        const fresh: Waiting = {
          bytes,
          since: at,
          onDrain: () => {
            // under the kernel's watch only what the client took counts: the kernel took these
            if (fresh.taken === undefined) fresh.since = now();
          },
        };
        socket.on('drain', fresh.onDrain);
        waiting.set(socket, fresh);
      } else if (bytes < entry.bytes && entry.taken === undefined) {
        entry.bytes = bytes;
        entry.since = at;
      } else if (told === false) {
        if (at - entry.since >= timeoutMs) reset(socket);
      } else if (entry.taken === undefined ? at - entry.since >= half : at - entry.taken.at >= half) {
        entry.bytes = bytes;
        due.push(socket);
      }
    }
    if (due.length > 0 && !reading) {
      reading = true;
      acked(due)
        .catch(() => undefined)
        .then((taken) => judge(due, taken, now()))
        .finally(() => (reading = false));
    }
    if (unlogged > 0 && logger && at - lastLog >= LOG_EVERY_MS) {
      logger.warn({ closed: unlogged, stallTimeoutMs: timeoutMs, stallMinRate: minRate }, `closed ${unlogged} connections whose clients took under ${minRate} bytes/s of their answers`);
      unlogged = 0;
      lastLog = at;
    }
  };
  const timer = setInterval(sweep, Math.max(10, Math.min(1000, Math.floor(timeoutMs / 4))));
  timer.unref();
  watch.sweep = sweep;
  watch.stop = () => clearInterval(timer);
  return watch;
}
