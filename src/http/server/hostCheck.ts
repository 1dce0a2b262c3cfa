/**
 * The Host of every request, checked before anything else answers it (RFC 9112 section 3.2): more
 * than one Host line, or a Host or absolute-form authority that is not `hostname[:port]`
 * (request/host.ts: a list, a bad port, other characters), is answered 400 at once, before the
 * cache hits and the router, with `Connection: close`. Node keeps the first Host line alone in
 * `headers`; the lines are counted in `rawHeaders`. (An HTTP/1.1 request without Host never gets
 * here: Node answers it 400 itself.)
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { hostProblem } from '../request/host.ts';
import { targetAuthority } from '../request/target.ts';
import { logAccessBeforeRouting, requestId } from './plugins/accessLog.ts';
import type { RequestObserver } from './plugins/metrics.ts';
import { JSON_TYPE } from '../answer/respond.ts';
import { httpErrors } from '../answer/errorCatalog.ts';
import type { BeforeRouting } from './beforeRouting.ts';

/** The last Host found well formed: most requests repeat it, and skip the pattern. */
let wellFormed = '';

/** The message of a malformed Host or target host; undefined when both are well formed. */
export function hostMessage(request: IncomingMessage): string | undefined {
  const raw = request.rawHeaders;
  let lines = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') lines++;
  if (lines > 1) return 'Invalid Host header: more than one';
  const host = request.headers.host;
  if (host !== undefined && host !== '' && host !== wellFormed) {
    const problem = hostProblem(host);
    if (problem !== undefined) return `Invalid Host header: ${problem}`;
    wellFormed = host;
  }
  const authority = targetAuthority(request.url ?? '');
  const targetProblem = authority === undefined ? undefined : hostProblem(authority);
  return targetProblem === undefined ? undefined : `Invalid host in the request target: ${targetProblem}`;
}

export interface HostCheckOptions {
  /** response.compression: every JSON answer says Vary: Accept-Encoding. */
  vary: boolean;
  logger: Logger | false;
  observe: RequestObserver;
}

/** Answers 400 and returns true for a request whose Host is malformed; false (nothing sent) otherwise. */
export function hostCheck({ vary, logger, observe }: HostCheckOptions): BeforeRouting {
  return (request, response) => {
    const message = hostMessage(request);
    if (message === undefined) return false;
    const started = performance.now();
    const id = requestId(request.headers['x-request-id']);
    const answer = httpErrors.invalidHost(message);
    const body = Buffer.from(answer.body, 'utf8');
    const headers = ['access-control-allow-origin', '*', 'x-request-id', id, 'content-type', JSON_TYPE, ...(vary ? ['vary', 'Accept-Encoding'] : [])];
    response.writeHead(answer.status, [...headers, 'content-length', String(body.length), 'connection', 'close']);
    response.end(body);
    const ms = performance.now() - started;
    const method = request.method ?? '';
    if (logger) logAccessBeforeRouting(logger, id, method, request.url ?? '', 400, ms);
    observe(method, 'unmatched', 400, ms / 1000);
    return true;
  };
}
