/**
 * The HTTP side of a graceful shutdown. `drain(graceMs)`:
 *
 * 1. stops accepting connections, but does not close the open ones (http.Server#close would also
 *    destroy every idle connection at once, among them connections accepted whose request Node has
 *    not read yet: their clients would see a reset);
 * 2. answers every new request 503 `Service unavailable` with `Retry-After: 1` and
 *    `Connection: close` (health probes and metrics still answer; readiness says not ready), and
 *    gives the requests in flight `Connection: close` too;
 * 3. waits until the requests in flight are answered, and at least LINGER_MS for idle connections
 *    to send a request already on its way (it gets the 503), up to `graceMs`;
 * 4. closes the idle connections, answers the partly received requests (slow clients) 503 and
 *    closes their connections, and destroys the connections of requests still running at the
 *    deadline (`cut`).
 */
import type { Server as HttpServer, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { answerAndClose, rawErrorAnswer } from '../../answer/rawAnswer.ts';
import { sendError } from '../../answer/respond.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';
import { routeFlags } from '../routeFlags.ts';

/** How long idle connections keep being read after the drain began. */
const LINGER_MS = 1000;
const POLL_MS = 25;

export interface DrainReport {
  /** Requests in flight when the drain began. */
  inFlight: number;
  /** Requests answered 503 during the drain (partly received ones included). */
  refused: number;
  /** Requests still running at the deadline, whose connections were destroyed. */
  cut: number;
  ms: number;
}

export class Drain {
  #draining = false;
  #refused = 0;
  private readonly sockets = new Set<Socket>();
  private readonly inFlight = new Set<ServerResponse>();
  private readonly drainListeners: Array<() => void> = [];

  constructor(private readonly server: HttpServer) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.prependListener('request', (_request, response: ServerResponse) => {
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Runs `listener` when the drain begins (long answers end themselves then: event streams). */
  onDrain(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  /** Counts a request answered 503 because of the drain. */
  refused(): void {
    this.#refused++;
  }

  async drain(graceMs: number): Promise<DrainReport> {
    const started = performance.now();
    this.#draining = true;
    for (const listener of this.drainListeners) listener();
    const inFlight = this.inFlight.size;
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader('connection', 'close');
    if (this.server.listening) NetServer.prototype.close.call(this.server);

    const deadline = started + graceMs;
    const linger = Math.min(LINGER_MS, graceMs);
    for (;;) {
      const now = performance.now();
      if (now >= deadline) break;
      if (this.inFlight.size === 0 && (this.sockets.size === 0 || now - started >= linger)) break;
      await sleep(POLL_MS);
    }

    const running = new Set<Socket>();
    for (const response of this.inFlight) if (response.socket) running.add(response.socket);
    this.server.closeIdleConnections();
    for (const socket of this.sockets) {
      if (socket.destroyed) continue;
      if (running.has(socket)) {
        socket.destroy();
      } else {
        // a request partly received: it will not be served
        this.#refused++;
        answerAndClose(socket, rawErrorAnswer(httpErrors.shuttingDown));
      }
    }
    // the answered connections close when their clients have read the answer (at most a second)
    while (this.sockets.size > 0 && performance.now() < deadline + 1500) await sleep(POLL_MS);
    for (const socket of this.sockets) socket.destroy();
    return { inFlight, refused: this.#refused, cut: running.size, ms: Math.round(performance.now() - started) };
  }
}

const drains = new WeakMap<FastifyInstance, Drain>();

/** The drain of an app made by buildApp. */
export function drainOf(app: FastifyInstance): Drain {
  const drain = drains.get(app);
  if (!drain) throw new Error('the app has no drain (not made by buildApp)');
  return drain;
}

/** Tracks the app's connections and requests, and answers 503 while draining (see Drain). */
export function registerDrain(app: FastifyInstance): Drain {
  const drain = new Drain(app.server);
  drains.set(app, drain);
  app.addHook('onRequest', (request, reply, done) => {
    if (!drain.draining) return done();
    reply.header('connection', 'close');
    if (routeFlags(request).operational) return done();
    drain.refused();
    sendError(reply, httpErrors.shuttingDown);
  });
  return drain;
}
