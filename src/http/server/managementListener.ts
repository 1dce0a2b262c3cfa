/**
 * The management listener (`server.managementPort`; off by default): the health probes and the
 * metrics on a port of their own, as the mirror node's management port. On the service's port a
 * connection waits in the kernel's accept queue behind every connection that came before it; when
 * one client reconnects a thousand connections at once, a probe waits behind all of them (1-5 s under
 * the hostile bench, docs/load-control.md), and an orchestrator whose probe times out in 1 s takes a
 * healthy process out of service. Here only probes and scrapes queue. They are answered by the
 * app's own routes (the same bodies, headers and access log); no cap or shedding applies, as on the
 * reserved places of the service's port; every other path is 404.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { httpErrors } from '../answer/errorCatalog.ts';
import { preparedAnswer } from '../answer/preparedAnswer.ts';
import { isOperational } from './load/operational.ts';

export interface ManagementListener {
  /** The port it listens on (the one asked for, or the kernel's choice for 0 in tests). */
  readonly port: number;
  /** Stops listening and closes its connections. */
  close(): Promise<void>;
}

export interface ManagementOptions {
  port: number;
  host: string | undefined;
  backlog: number;
  /** server.headersTimeout, ms. */
  headersTimeoutMs: number;
  /** response.compression: the 404 says Vary: Accept-Encoding as every JSON answer does. */
  vary: boolean;
}

/** Listens on `port` for the health probes and `/metrics` of `app` (which must be ready). */
export async function listenManagement(app: FastifyInstance, { port, host, backlog, headersTimeoutMs, vary }: ManagementOptions): Promise<ManagementListener> {
  const notFound = preparedAnswer(httpErrors.notFound, vary);
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (isOperational(request)) return app.routing(request, response);
    request.resume();
    response.writeHead(notFound.status, notFound.headers);
    response.end(request.method === 'HEAD' ? undefined : notFound.body);
  });
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = headersTimeoutMs * 2;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
