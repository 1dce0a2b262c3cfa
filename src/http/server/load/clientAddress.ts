/**
 * Who a client is, for the limits per client: the peer's address of a connection, or with
 * server.trustProxy the client a proxy names in X-Forwarded-For (its first value, as Fastify's
 * request.ip and the stream limits take it).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** An IPv4 client of a dual-stack listener shows as `::ffff:a.b.c.d`: one address, one name. */
const V4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The address of a connection's peer, IPv4-mapped IPv6 addresses as plain IPv4 ('' once the socket is gone). */
export function peerAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return V4_MAPPED.exec(address)?.[1] ?? address;
}

/** The client a trusted proxy forwards the request of (the first X-Forwarded-For value), or undefined. */
export function forwardedClient(request: IncomingMessage): string | undefined {
  const header = request.headers['x-forwarded-for'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const first = value.split(',', 1)[0]!.trim();
  return first === '' ? undefined : (V4_MAPPED.exec(first)?.[1] ?? first);
}

/** The client of a request: with server.trustProxy the one X-Forwarded-For names, else the connection's peer. */
export function clientOf(request: IncomingMessage, trustProxy: boolean): string {
  return (trustProxy ? forwardedClient(request) : undefined) ?? peerAddress(request.socket as Socket);
}
