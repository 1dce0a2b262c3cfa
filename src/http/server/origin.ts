/**
 * The origin of pagination links with `response.includeHostInLink`: "<protocol>://<hostname>:<port>",
 * as the reference builds it, from request headers that a client controls. Nothing outside
 * hostname syntax is ever reflected: a Host (or X-Forwarded-Host) that is not `hostname[:port]`
 * gives no origin at all (the link stays relative, and still works), and the protocol is only ever
 * `http` or `https`. X-Forwarded-Proto and X-Forwarded-Host count only with `server.trustProxy`
 * (Fastify's trustProxy: the last value of each, the one the nearest proxy wrote).
 */
import type { FastifyRequest } from 'fastify';

/** DNS labels (letters, digits, hyphens; underscores too, as container names use them), or an IPv6 literal; an optional port. */
const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;

/** The hostname of a `hostname[:port]` value, or undefined when the value is anything else. */
export function validHostname(host: string | undefined): string | undefined {
  if (!host || host.length > 260 || !HOST.test(host)) return undefined;
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':', 1)[0] ?? '');
}

/** "" (relative links) or the origin for the request's links; `port` is the configured port, as in the reference. */
export function linkOrigin(request: FastifyRequest, port: number): string {
  const hostname = validHostname(request.host);
  if (hostname === undefined) return '';
  const protocol = request.protocol.trim().toLowerCase() === 'https' ? 'https' : 'http';
  return `${protocol}://${hostname}:${port}`;
}
