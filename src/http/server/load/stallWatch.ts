/**
 * Connections whose client takes no more of its answer are closed (server.stallTimeout): a page, an
 * NDJSON listing or an event stream whose bytes wait in the process for `timeoutMs` without any of
 * them reaching the client. Without this, a client that stops reading holds its answer's bytes, and
 * a stream its place, for as long as TCP keeps the connection open (zero-window probes: forever).
 *
 * Once a second (or a quarter of the timeout, if shorter) every open connection is looked at: one
 * with bytes waiting (its socket's writableLength) is stalled from the first look that finds bytes
 * waiting, and makes progress when fewer wait than at the last look or when its socket drains.
 * A stalled connection is reset (RST: its unsent bytes are dropped by the kernel too). Idle
 * keep-alive connections and streams with nothing to send wait nothing and are never judged.
 * Counted in `http_stalled_connections_closed_total`, logged once per LOG_EVERY_MS.
 *
 * The socket shows only what the kernel has not taken: once the kernel's send buffer is full (it
 * grows to megabytes), it takes more only after a third of it has reached the client, so a client
 * that reads steadily but slowly can show no progress for longer than the timeout. A protocol that
 * learns of the client's reads itself tells the watch (tookBytes: a WebSocket's pongs, wsWriter.ts).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

const LOG_EVERY_MS = 10_000;

/** Per watched socket: marks it as making progress now. */
const progressOf = new WeakMap<Socket, () => void>();

/** Tells the watch that `socket`'s client took bytes now, which the socket cannot show (no-op when unwatched). */
export function tookBytes(socket: Socket): void {
  progressOf.get(socket)?.();
}

interface Waiting {
  bytes: number;
  since: number;
  onDrain: () => void;
}

export interface StallWatch {
  /** Closed connections so far. */
  readonly closed: number;
  /** One look at every connection (the timer's; tests call it with their own clock). */
  sweep(): void;
  stop(): void;
}

export function watchStalls(server: Server, timeoutMs: number, registry: Registry, logger: Logger | false, now = () => performance.now()): StallWatch {
  const counter = new Counter({ name: 'http_stalled_connections_closed_total', help: 'Connections closed because their client took no bytes for server.stallTimeout', registers: [registry] });
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
      if (entry !== undefined) entry.since = now();
    });
    socket.once('close', () => {
      sockets.delete(socket);
      forget(socket);
    });
  });

  const sweep = () => {
    const at = now();
    for (const socket of sockets) {
      const bytes = socket.writableLength;
      if (bytes === 0 || socket.destroyed) {
        forget(socket);
        continue;
      }
      const entry = waiting.get(socket);
      if (entry === undefined) {
        const fresh: Waiting = { bytes, since: at, onDrain: () => (fresh.since = now()) };
        socket.on('drain', fresh.onDrain);
        waiting.set(socket, fresh);
      } else if (bytes < entry.bytes) {
        entry.bytes = bytes;
        entry.since = at;
      } else if (at - entry.since >= timeoutMs) {
        forget(socket);
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
        watch.closed++;
        counter.inc();
        unlogged++;
      }
    }
    if (unlogged > 0 && logger && at - lastLog >= LOG_EVERY_MS) {
      logger.warn({ closed: unlogged, stallTimeoutMs: timeoutMs }, `closed ${unlogged} connections whose clients took no bytes for ${timeoutMs} ms`);
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
