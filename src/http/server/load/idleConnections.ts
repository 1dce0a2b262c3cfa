/**
 * Idle kept-alive connections while the places are scarce. Uncrowded, a kept-alive connection stays
 * open for server.keepAliveTimeout (72 s: longer than the 60 s idle timeout of common load
 * balancers, so the service never closes a connection a balancer is about to reuse). While the
 * process holds half of server.maxConnections or more, or an address half of
 * server.maxConnectionsPerClient or more, a connection of theirs that has been idle between two
 * requests for CROWDED_IDLE_MS is closed instead: idle connections then cannot keep new clients
 * out. (A connection that has not finished its first request head is bounded by
 * server.headersTimeout, and one with a request in flight is never idle.)
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionCap } from './connectionCap.ts';
import { peerAddress } from './clientAddress.ts';

/** How long a kept-alive connection may stay idle while crowded: the reference's keep-alive timeout. */
export const CROWDED_IDLE_MS = 5000;
const LOOK_EVERY_MS = 1000;

export interface IdleConnections {
  /** Closed so far. */
  readonly closed: number;
  /** One look (the timer's; tests call it with their own clock). */
  sweep(): void;
  stop(): void;
}

/**
 * Watches `server`'s connections (call it once its request listener is in place: it adds one of its
 * own after). `now`: ms on a monotonic clock.
 */
export function closeIdleWhenCrowded(server: Server, cap: ConnectionCap, max: number, perClient: number, now = () => performance.now()): IdleConnections {
  const watch = { closed: 0, sweep: () => {}, stop: () => {} };
  if (max <= 0 && perClient <= 0) return watch;
  /** Connections between two requests, with when their last answer ended. */
  const idle = new Map<Socket, number>();
  const busy = new WeakMap<Socket, number>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    idle.delete(socket);
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (left === 0 && !socket.destroyed) idle.set(socket, now());
    });
  });
  // once per connection, not per request: a kept-alive connection would gather a listener a request
  server.on('connection', (socket: Socket) => socket.once('close', () => idle.delete(socket)));
  const crowded = (socket: Socket) =>
    (max > 0 && cap.open >= max / 2) || (perClient > 0 && cap.of(peerAddress(socket)) >= perClient / 2);
  watch.sweep = () => {
    const at = now();
    for (const [socket, since] of idle) {
      if (socket.destroyed) {
        idle.delete(socket);
        continue;
      }
      if (at - since < CROWDED_IDLE_MS || !crowded(socket)) continue;
      idle.delete(socket);
      socket.destroy(); // as Node closes an idle kept-alive connection: nothing is in flight on it
      watch.closed++;
    }
  };
  const timer = setInterval(watch.sweep, LOOK_EVERY_MS);
  timer.unref();
  watch.stop = () => clearInterval(timer);
  return watch;
}
