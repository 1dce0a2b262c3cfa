/**
 * The origin of pagination links with `response.includeHostInLink`: "<protocol>://<hostname>:<port>",
 * as the reference builds it, from the host that picked the request's network (request/host.ts),
 * so a link always leads back to the network that answered. Nothing outside hostname syntax is
 * ever reflected: a host that is not `hostname[:port]` gives no origin at all (the link stays
 * relative, and still works), and the protocol is only ever `http` or `https` (X-Forwarded-Proto
 * counts only with `server.trustProxy`: Fastify's request.protocol, the last value).
 */
import { hostnameOf } from '../request/host.ts';

/** "" (relative links) or the origin for the request's links; `port` is the configured port, as in the reference. */
export function linkOrigin(protocol: string, host: string, port: number): string {
  const hostname = hostnameOf(host);
  if (hostname === undefined) return '';
  return `${protocol.trim().toLowerCase() === 'https' ? 'https' : 'http'}://${hostname}:${port}`;
}
