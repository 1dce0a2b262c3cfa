/**
 * Answering before routing: the steps that take Node's own request before Fastify does (a malformed
 * Host, a hit of the in-process cache tier, admission's shed), each answering it or passing it on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Answers `request` and returns true, or returns false (nothing sent) for the next step, and at last Fastify. */
export type BeforeRouting = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Puts `steps`, in their order, before Fastify's handler on the app's server: a request one of them
 * answers (returning true) goes no further and never reaches the router; absent steps (undefined:
 * not configured) are left out. The router keeps its place among the server's `request` listeners
 * (the drain's, prepended, runs before it; idleConnections.ts's after it), so the steps may be put
 * there once everything they need exists.
 */
export function answerBeforeRouting(app: FastifyInstance, steps: ReadonlyArray<BeforeRouting | undefined>): void {
  const server = app.server;
  const routing = app.routing as (request: IncomingMessage, response: ServerResponse) => void;
  const chain = steps.filter((step): step is BeforeRouting => step !== undefined);
  const listeners = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  if (listeners.filter((listener) => listener === routing).length !== 1) throw new Error("the HTTP server should have Fastify's router as one request listener");
  const answering = (request: IncomingMessage, response: ServerResponse) => {
    let answered = false;
    try {
      for (const step of chain) if ((answered = step(request, response))) break;
    } catch (err) {
      // never a crash: before anything was sent the full path answers; after, the answer stands
      app.log.error({ err, url: request.url }, 'answer before routing failed');
      answered = response.headersSent;
      if (answered && !response.writableEnded) response.destroy();
    }
    if (!answered) routing(request, response);
  };
  server.removeAllListeners('request');
  for (const listener of listeners) server.on('request', listener === routing ? answering : listener);
}
