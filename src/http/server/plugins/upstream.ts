/**
 * The upstream mirror node (upstream.url): every request this service has no route for (what would
 * otherwise be the reference's 404: /api/v1/accounts, POST /api/v1/contracts/call, ...) is passed
 * to it as it came (method, path, query, headers, body, streamed both ways) and its answer is
 * passed back as it is. Routes served here never go there, whatever they answer. When the
 * upstream cannot be reached the answer is 502 (504 when it does not answer in upstream.timeout)
 * in the mirror node's error shape, and the log says so once when it starts failing and once when
 * it answers again.
 */
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../../config/config.ts';
import { targetPath } from '../../request/target.ts';
import { sendError } from '../../answer/respond.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';

type NotFoundHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Headers a proxy must not pass on a bodiless request whose body it does not forward. */
const BODY_HEADERS = ['content-length', 'transfer-encoding'] as const;

/**
 * Hop-by-hop headers (RFC 9110 section 7.6.1) that are not passed on: they were about the client's
 * connection to this service. `Expect` was answered here already (Node sends the 100 Continue).
 * undici refuses a request with `Upgrade` or `Expect`, and passing them on answered 502.
 */
const HOP_HEADERS = ['upgrade', 'expect', 'te', 'keep-alive', 'proxy-connection'] as const;

/** The upstream's reachability, logged once per change. */
class UpstreamState {
  #failing = false;

  constructor(
    private readonly origin: string,
    private readonly logger: Logger | undefined,
  ) {}

  answered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.logger?.info(`upstream ${this.origin} answers again`);
  }

  failed(status: number, why: string): void {
    if (this.#failing) return;
    this.#failing = true;
    this.logger?.warn(`upstream ${this.origin} failing: ${why}; answering ${status} until it answers again`);
  }
}

/** What went wrong, from reply-from's error and the agent's error under it. */
function describe(error: Error & { cause?: unknown }): string {
  const cause = error.cause as (Error & { code?: string }) | undefined;
  if (!cause) return error.message;
  return cause.code && !cause.message.includes(cause.code) ? `${cause.message} (${cause.code})` : cause.message;
}

/**
 * Sets up the proxy when upstream.url is configured and returns the not-found handler that uses
 * it; undefined without an upstream. Request bodies are not parsed anywhere in the app then (the
 * routes served here are all GET), so that they reach the upstream byte for byte.
 */
export function registerUpstream(app: FastifyInstance, config: Config, logger: Logger | false): NotFoundHandler | undefined {
  const { url, timeoutMs } = config.upstream;
  if (!url) return undefined;
  const prefix = url.pathname.replace(/\/$/, '');
  const { origin } = url;
  const state = new UpstreamState(url.origin, logger || undefined);

  app.register(replyFrom, {
    base: url.origin,
    disableRequestLogging: true,
    destroyAgent: true,
    undici: {
      connections: 128,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // reply-from would not check the upstream's certificate by default; a mirror node's is public
      connect: { timeout: timeoutMs, rejectUnauthorized: true },
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  return async (request, reply) => {
    // reply-from logs every failed request with its stack at warn level; the state logs once instead
    const log = request.log;
    const level = log.level;
    log.level = 'error';
    const restoreLevel = () => {
      log.level = level;
    };
    const path = targetPath(request.raw.url ?? request.url);
    if (path === undefined) {
      restoreLevel();
      return sendError(reply, httpErrors.badRequest);
    }
    // the whole URL, so that no path (`//host/...`, `/\\host/...`) can be read as another origin;
    // reply-from adds the request's query string as it came
    return reply.from(`${origin}${prefix}${path}`, {
      // no retries: the upstream's answer, a 503 too, goes back as it is
      retryDelay: () => null,
      rewriteRequestHeaders: (_request, headers) => {
        const forwarded = { ...headers, 'x-request-id': request.id };
        for (const name of HOP_HEADERS) delete (forwarded as Record<string, unknown>)[name];
        if (request.method === 'GET' || request.method === 'HEAD') for (const name of BODY_HEADERS) delete forwarded[name];
        return forwarded;
      },
      rewriteHeaders: (headers) => {
        restoreLevel();
        state.answered();
        return headers;
      },
      onError: (failed, { error }) => {
        restoreLevel();
        const status = (error as { statusCode?: number }).statusCode === 504 ? 504 : 502;
        state.failed(status, describe(error));
        sendError(failed as FastifyReply, status === 504 ? httpErrors.gatewayTimeout : httpErrors.badGateway);
      },
    });
  };
}
