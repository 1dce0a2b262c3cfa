/**
 * The caps on open connections, kept here rather than by Node: Node closes a connection beyond its
 * `maxConnections` the moment it is accepted, and a client that has sent its request by then (most
 * have: they write as soon as they are connected) gets a reset, counted as a connection error
 * (issue 31: 486 at 1,024 connections, cap 1,000).
 *
 * - `server.maxConnections` per process, and `server.maxConnectionsPerClient` per client address
 *   (the peer's: a connection is judged before a byte of it is read, so behind a proxy that
 *   `server.trustProxy` trusts, the forwarded client's requests are capped instead, clientCap.ts).
 * - A connection beyond a cap first takes one of RESERVED places (at most RESERVED_PER_CLIENT of one
 *   address): it is parsed as usual, and only the health probes and metrics are answered on it
 *   (reservedOnly); any other request gets the refusal with `Connection: close` after `holdMs`. So
 *   a probe is answered while one address (or a crowd) holds every place.
 * - Beyond the reserve the connection never reaches the HTTP parser: after `holdMs` (so that a
 *   client that reconnects at once cannot spin) it is answered the refusal with `Connection:
 *   close`, what it sent is read and dropped, and it ends with a FIN (destroyed a second later at
 *   the latest), never a reset. The refusal is the shed 503, or 429 when the client's own cap is
 *   what it passed: an address past its cap is one client, opening connection after connection,
 *   so its are held `clientHoldMs` (server.headersTimeout), and its reconnections come a tenth as
 *   often. At most HELD_PER_PLACE times the places wait in all; any more are answered at once.
 *
 * A connection that becomes an event stream or a WebSocket leaves the counts (releaseConnection):
 * streams have their own limits, and ten thousand of them must not take the places of the
 * connections that ask for pages. Idle connections do not hold a place for long: the server's
 * headersTimeout and keepAliveTimeout close them (server.ts).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { answerAndClose } from '../../answer/rawAnswer.ts';
import { Counts } from './counts.ts';
import { isOperational } from './operational.ts';
import { peerAddress } from './clientAddress.ts';
import type { Refusals } from './refusals.ts';

/** Connections beyond the caps that are parsed, for the probes and metrics. */
export const RESERVED = 16;
/** Of those, one client address may hold this many. */
export const RESERVED_PER_CLIENT = 2;
/** Refused connections held for their answer at once, per place of the larger cap. */
const HELD_PER_PLACE = 4;

/** The release of each counted connection: takes it out of its cap's counts, once. */
const releases = new WeakMap<Socket, () => void>();
/** The connections on a reserved place, with the refusal their other requests get. */
const reserved = new WeakMap<Socket, 'capacity' | 'client'>();

/** Takes `socket` out of its server's connection counts (it stays open); no-op when it is not counted. */
export function releaseConnection(socket: Socket): void {
  releases.get(socket)?.();
}

export interface ConnectionCap {
  /** Connections open and served now (those on a reserved place not counted). */
  readonly open: number;
  /** Connections on a reserved place now. */
  readonly reserved: number;
  /** Open connections (served or reserved) of one client address. */
  of(address: string): number;
}

export interface ConnectionCapOptions {
  /** server.maxConnections; 0: no cap. */
  max: number;
  /** server.maxConnectionsPerClient; 0: no cap (and none behind a trusted proxy). */
  perClient: number;
  /** ms a refused connection waits for its answer (server.pressure.maxShedDelay). */
  holdMs: number;
  /** ms one refused for its address's cap waits (server.headersTimeout); holdMs when absent. */
  clientHoldMs?: number;
  refusals: Refusals;
}

/** Node's HTTP parser: the connection listener every HTTP server has first, one function for all. */
const PARSER = createServer().listeners('connection')[0];

/**
 * Puts the caps in front of the HTTP server's own connection listener, Node's parser, which must
 * still be its first (listeners added after it, as the drain's and the stall watch's, hear every
 * connection, refused ones too).
 */
export function capConnections(server: Server, { max, perClient, holdMs, clientHoldMs = holdMs, refusals }: ConnectionCapOptions): ConnectionCap {
  const [parse] = server.listeners('connection') as Array<(socket: Socket) => void>;
  if (parse === undefined || parse !== PARSER) throw new Error("the HTTP server's first connection listener should be its parser");
  const byClient = new Counts();
  const reservedByClient = new Counts();
  const cap = { open: 0, reserved: 0, of: (address: string) => byClient.of(address) };
  if (max <= 0 && perClient <= 0) return cap;
  let waiting = 0;
  server.removeListener('connection', parse);
  server.prependListener('connection', (socket: Socket) => {
    const client = peerAddress(socket);
    const mine = byClient.of(client);
    const passed = perClient > 0 && mine >= perClient ? 'client' : max > 0 && cap.open >= max ? 'capacity' : undefined;
    const onReserve = passed !== undefined && cap.reserved < RESERVED && reservedByClient.of(client) < RESERVED_PER_CLIENT;
    if (passed === undefined || onReserve) {
      if (onReserve) {
        cap.reserved++;
        reservedByClient.add(client);
        reserved.set(socket, passed);
      } else cap.open++;
      byClient.add(client);
      const release = () => {
        if (!releases.delete(socket)) return;
        byClient.remove(client);
        if (reserved.delete(socket)) {
          cap.reserved--;
          reservedByClient.remove(client);
        } else cap.open--;
      };
      releases.set(socket, release);
      socket.once('close', release);
      parse.call(server, socket);
      return;
    }
    refusals.count(passed);
    socket.on('error', () => socket.destroy());
    const close = () => {
      socket.resume(); // what the client sent is read and dropped: a close with unread input would be a reset
      answerAndClose(socket, refusals.raw(passed));
    };
    const hold = passed === 'client' ? clientHoldMs : holdMs;
    if (hold <= 0 || waiting >= HELD_PER_PLACE * Math.max(max, perClient)) return close();
    waiting++;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      waiting--;
      return true;
    };
    const timer = setTimeout(() => settle() && close(), hold);
    timer.unref();
    socket.once('close', () => settle() && clearTimeout(timer));
  });
  return cap;
}

/**
 * Before routing: a request on a reserved place that is not a probe or the metrics is refused
 * (after `holdMs`, with `Connection: close`); every other request passes on.
 */
export function reservedOnly(holdMs: number, refusals: Refusals): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const passed = reserved.get(request.socket);
    if (passed === undefined || isOperational(request)) return false;
    refusals.count(passed);
    request.resume();
    const refuse = () => {
      if (!response.destroyed && !response.writableEnded) refusals.send(passed, response);
    };
    if (holdMs > 0) setTimeout(refuse, holdMs).unref();
    else refuse();
    return true;
  };
}
