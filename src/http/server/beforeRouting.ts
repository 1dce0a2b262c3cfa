/**
 * Answering before routing: the steps that take Node's own request before Fastify does (a malformed
 * Host, a hit of the in-process cache tier, admission's shed), each answering it or passing it on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Answers `request` and returns true, or returns false (nothing sent) for the next step, and at last Fastify. */
export type BeforeRouting = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Puts `steps` before Fastify's handler on the app's server: the requests they answer (returning
 * true) never reach the router. Call it before anything else listens for requests: Fastify
 * attached its handler as the server's only `request` listener.
 */
export function answerBeforeRouting(app: FastifyInstance, steps: BeforeRouting): void {
  const server = app.server;
  const [routing, ...others] = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  if (routing === undefined || others.length > 0) throw new Error('the HTTP server should have one request listener, the router');
  server.removeListener('request', routing);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let answered: boolean;
    try {
      answered = steps(request, response);
    } catch (err) {
      // never a crash: before anything was sent the full path answers; after, the answer stands
      app.log.error({ err, url: request.url }, 'answer before routing failed');
      answered = response.headersSent;
      if (answered && !response.writableEnded) response.destroy();
    }
    if (!answered) routing(request, response);
  });
}
