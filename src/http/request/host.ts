/**
 * The host a request names (RFC 9112 section 3.2): the authority of a target in absolute form (the
 * Host header is ignored then), else the Host header; behind a trusted proxy (server.trustProxy)
 * the last X-Forwarded-Host value, the one the nearest proxy wrote. The same host picks the
 * network (networks.ts) and, with response.includeHostInLink, the origin of the links (origin.ts).
 *
 * A host is `hostname[:port]`: DNS labels of letters, digits, `-` and `_` (container names use
 * them), or a bracketed IPv6 literal; a port from 1 to 65535. A Host header or an absolute-form
 * authority that is anything else is refused with 400 before routing (server/hostCheck.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { targetAuthority } from './target.ts';

const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[[0-9a-f:.]{2,45}\])(?::([^:@]*))?$/i;
const PORT = /^\d{1,5}$/;
const MAX_LENGTH = 260;

/** Why `value` is no `hostname[:port]`, or undefined when it is one. */
export function hostProblem(value: string): string | undefined {
  if (value.includes(',')) return 'a list of hosts';
  const match = value.length > MAX_LENGTH ? null : HOST.exec(value);
  if (match === null) return 'not hostname[:port]';
  const port = match[1];
  if (port !== undefined && (!PORT.test(port) || Number(port) < 1 || Number(port) > 65535)) return 'the port is not a number from 1 to 65535';
  return undefined;
}

/** The hostname of a `hostname[:port]` value, as written; undefined when the value is anything else. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host || hostProblem(host) !== undefined) return undefined;
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':', 1)[0]!;
}

/** The request's parts a host is read from (Node's request and Fastify's raw request are both one). */
export interface HostSource {
  url?: string | undefined;
  headers: IncomingHttpHeaders;
}

/** The host a request names, as sent (trimmed): "" when it names none. */
export function requestHost({ url, headers }: HostSource, trustProxy: boolean): string {
  const forwarded = trustProxy ? headers['x-forwarded-host'] : undefined;
  if (typeof forwarded === 'string' && forwarded.trim() !== '') return forwarded.slice(forwarded.lastIndexOf(',') + 1).trim();
  return (targetAuthority(url ?? '') ?? headers.host ?? '').trim();
}

/** The network label of a host: its first label, lower case (the port aside). */
export function hostLabel(host: string): string {
  const lower = host.toLowerCase();
  const name = lower.startsWith('[') ? lower : lower.split(':', 1)[0]!;
  return name.split('.', 1)[0]!;
}
