/**
 * Admission before routing (issue 31): whether a request is worked on or shed is decided on Node's
 * request and response objects, before Fastify makes its own, before routing and before the
 * query is parsed. A shed request costs its HTTP parse, a look at its method, path and Host, and
 * one write of bytes prepared once: `503 {"_status":{"messages":[{"message":"Service unavailable"}]}}`
 * with `Retry-After: 1`, CORS and Vary as on every answer. It is counted in the metrics
 * (`http_requests_shed_total`, by reason) and summed up in the log once per LOG_EVERY_MS, not a
 * line each; it gets no request id and no access line.
 *
 * Shed, in this order (each check 0 or off is skipped):
 *
 * 1. any request but the health probes and metrics while the event loop's delay or the heap is
 *    beyond its bound (`underPressure`), or when `server.pressure.maxPoolWaiting` statements
 *    already wait for a connection of the request's database (`poolWaiting`);
 * 2. a GET or HEAD of the contract routes (`/api/v1/contracts...`, whatever its Accept), or a POST
 *    of the JSON-RPC endpoint (`/rpc`: its methods read the same database), when its
 *    network's limit of requests in flight is reached (`limit`): the pool's connections plus
 *    `server.pressure.maxQueuedRequests`, or with `server.pressure.adaptive` a limit learnt from how
 *    long statements wait for a database connection (`server.pressure.maxQueueWait`), between the
 *    pool's connections and that bound (limiter.ts).
 *    Requests, not statements: the pool-queue check counts statements, and a request that runs
 *    several at once (the sibling routes) would be shed by it where the requests are few.
 *
 * A request that becomes a stream (NDJSON, events, an eth_getLogs answer of several pages) leaves
 * the limit when its stream starts (leaveAdmission): streams have limits of their own
 * (streams/limits.ts, src/rpc/pageGate.ts), and a stream's length says nothing of the database's
 * capacity. A shed /rpc request gets the same 503 (the relay sheds nothing, so it has no JSON-RPC
 * error for it); its WebSocket upgrades are bounded by rpc.ws.maxConnections instead.
 *
 * Shed answers are paced (shedPacer.ts). During the shutdown drain nothing is shed here: the drain
 * answers (drain.ts), and held answers are sent at once with `Connection: close`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import type { ServerSettings } from '../../../config/service.ts';
import { targetPath } from '../../request/target.ts';
import { type PreparedAnswer, preparedAnswer } from '../../answer/preparedAnswer.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';
import { isOperationalPath } from './operational.ts';
import type { PoolQueue } from '../../../db/poolQueue.ts';
import { QueueWaitLimit } from './limiter.ts';
import { ShedPacer, TICK_MS } from './shedPacer.ts';

const LOG_EVERY_MS = 10_000;

export type ShedReason = 'underPressure' | 'poolWaiting' | 'limit' | 'connections' | 'client';

/** A database the requests of some hosts go to, with its pool's size. */
export interface AdmittedNetwork {
  name: string | undefined;
  poolSize: number;
  poolWaiting(): number;
  /** The waits for a connection of its database (absent: the adaptive limit stays at its bound). */
  queue?: PoolQueue;
}

export interface AdmissionOptions {
  pressure: ServerSettings['pressure'];
  networks: readonly AdmittedNetwork[];
  /** The network of a request (undefined: none, Fastify answers its 404). */
  networkOf: (request: IncomingMessage) => AdmittedNetwork | undefined;
  /** True while under-pressure's event-loop or heap bound is passed. */
  underPressure: () => boolean;
  draining: () => boolean;
  /** response.compression: every JSON answer says Vary: Accept-Encoding. */
  vary: boolean;
  logger: Logger | false;
  /** ms on a monotonic clock; performance.now() by default (tests pass a fake one). */
  now?: () => number;
}

export interface Admission {
  /** Before routing: true when it answered the request (shed). */
  beforeRouting(request: IncomingMessage, response: ServerResponse): boolean;
  /** Counts a shed that happened elsewhere (connections beyond the cap). */
  count(reason: ShedReason): void;
  /** Sends every held answer (with Connection: close). */
  flush(): void;
  stop(): void;
  readonly registry: Registry;
}

/** The release of each admitted request's place in its limit, once (by its end or by leaveAdmission). */
const admitted = new WeakMap<IncomingMessage, () => void>();

/** The request becomes a stream: it gives its place in the limit back now, without a latency. */
export function leaveAdmission(request: IncomingMessage): void {
  admitted.get(request)?.();
}

const CONTRACTS = /^\/api\/v1\/contracts(?:\/|$)/i;
/** The JSON-RPC endpoint's path, as the router matches it. */
const RPC = /^\/rpc\/?$/i;

/** The requests the limit counts: reads of the contract routes, calls of the JSON-RPC endpoint. */
const counted = (method: string | undefined, path: string): boolean =>
  ((method === 'GET' || method === 'HEAD') && CONTRACTS.test(path)) || (method === 'POST' && RPC.test(path));

/** The shed answer (httpErrors.unavailable), made once: as headers and as raw HTTP with Connection: close. */
export const shedAnswer = (vary: boolean): PreparedAnswer => preparedAnswer(httpErrors.unavailable, vary);

export function admission({ pressure, networks, networkOf, underPressure, draining, vary, logger, now: clock = () => performance.now() }: AdmissionOptions): Admission {
  const { status, body, headers, closing } = shedAnswer(vary);
  const send = (response: ServerResponse, close: boolean) => {
    response.writeHead(status, close ? closing : headers);
    response.end(body);
  };
  const pacer = new ShedPacer(send, pressure.maxShedDelayMs);

  const { maxPoolWaiting, maxQueuedRequests, adaptive, maxQueueWaitMs } = pressure;
  const limiters = new Map<AdmittedNetwork, QueueWaitLimit>();
  for (const network of networks) {
    const min = Math.max(1, network.poolSize);
    if (adaptive) {
      const queue = maxQueuedRequests > 0 ? maxQueuedRequests : maxPoolWaiting > 0 ? maxPoolWaiting : 10_000;
      const { queue: waits } = network;
      const limiter = new QueueWaitLimit({ min, max: min + queue, maxWaitMs: maxQueueWaitMs, ...(waits ? { oldestWaitMs: (now: number) => waits.oldestWaitMs(now) } : {}) });
      waits?.observeWaits((waitMs, now) => limiter.waited(now, waitMs));
      limiters.set(network, limiter);
    } else if (maxQueuedRequests > 0) {
      // a fixed limit: min = max, the waits it is told of change nothing
      const fixed = min + maxQueuedRequests;
      limiters.set(network, new QueueWaitLimit({ min: fixed, max: fixed, maxWaitMs: maxQueueWaitMs }));
    }
  }

  const registry = new Registry();
  const shedCounter = new Counter({ name: 'http_requests_shed_total', help: 'Requests answered 503 by load shedding, before routing', labelNames: ['reason'], registers: [registry] });
  const reasons: ShedReason[] = ['underPressure', 'poolWaiting', 'limit', 'connections', 'client'];
  const counters = Object.fromEntries(reasons.map((r) => [r, shedCounter.labels(r)])) as Record<ShedReason, ReturnType<typeof shedCounter.labels>>;
  const named = networks.some((n) => n.name !== undefined);
  const perNetwork = (name: string, help: string, value: (l: QueueWaitLimit) => number) =>
    new Gauge({
      name, help, labelNames: named ? ['network'] : [], registers: [registry],
      collect() {
        for (const [network, limiter] of limiters) this.set(named ? { network: network.name ?? '' } : {}, value(limiter));
      },
    });
  perNetwork('http_concurrency_limit', 'The limit of contract requests in flight (fixed, or adaptive)', (l) => l.limit);
  perNetwork('http_requests_in_flight', 'Contract requests admitted and not yet answered', (l) => l.inFlight);
  perNetwork('db_pool_standing_wait_seconds', "The least wait for a database connection in the adaptive limit's last window that had waits", (l) => l.standingWaitMs / 1000);
  new Gauge({ name: 'http_shed_answers_held', help: 'Shed answers waiting for their pace', registers: [registry], collect() { this.set(pacer.held); } });

  // the log: one line when shedding begins, then one per LOG_EVERY_MS with the counts
  const pending: Record<ShedReason, number> = { underPressure: 0, poolWaiting: 0, limit: 0, connections: 0, client: 0 };
  let pendingTotal = 0;
  let lastLog = -Infinity;
  const count = (reason: ShedReason) => {
    counters[reason].inc();
    pending[reason]++;
    if (pendingTotal++ === 0 && clock() - lastLog >= LOG_EVERY_MS) report(clock(), true);
  };
  const limitsNow = () => Object.fromEntries([...limiters].map(([n, l]) => [n.name ?? 'limit', `${l.inFlight}/${l.limit}`]));
  const report = (now: number, starting: boolean) => {
    if (logger) {
      const shed = Object.fromEntries(Object.entries(pending).filter(([, n]) => n > 0));
      const fields = { shed, inFlight: limitsNow(), held: pacer.held };
      if (starting) logger.warn(fields, 'overloaded: answering 503 until the load drops');
      else logger.warn({ ...fields, seconds: Math.round((now - lastLog) / 1000) }, `overloaded: ${pendingTotal} requests shed`);
    }
    lastLog = now;
    for (const reason of reasons) pending[reason] = 0;
    pendingTotal = 0;
  };

  let admittedInTick = 0;
  const ticker = setInterval(() => {
    const now = clock();
    pacer.tick(now, admittedInTick);
    for (const limiter of limiters.values()) limiter.tick(now);
    admittedInTick = 0;
    if (pendingTotal > 0 && now - lastLog >= LOG_EVERY_MS) report(now, false);
  }, TICK_MS);
  ticker.unref();

  const shed = (response: ServerResponse, reason: ShedReason, now: number) => {
    count(reason);
    pacer.shed(response, now);
    return true;
  };

  const beforeRouting = (request: IncomingMessage, response: ServerResponse): boolean => {
    // the path the router routes by (that of a target in absolute form too)
    const path = targetPath(request.url ?? '') ?? '';
    if (draining() || isOperationalPath(path)) return false;
    const network = networkOf(request);
    const now = clock();
    if (underPressure()) return shed(response, 'underPressure', now);
    if (network === undefined) return false;
    if (maxPoolWaiting > 0 && network.poolWaiting() >= maxPoolWaiting) return shed(response, 'poolWaiting', now);
    const limiter = limiters.get(network);
    if (limiter === undefined || !counted(request.method, path)) return false;
    if (!limiter.tryAcquire(now)) return shed(response, 'limit', now);
    let released = false;
    const release = (answered: boolean) => {
      if (released) return;
      released = true;
      admitted.delete(request);
      if (answered) admittedInTick++;
      limiter.release(answered && response.statusCode === 503);
    };
    admitted.set(request, () => release(true));
    response.once('close', () => release(response.writableFinished));
    return false;
  };

  return {
    beforeRouting,
    count,
    flush: () => pacer.flush(true),
    stop: () => {
      clearInterval(ticker);
      pacer.flush(true);
    },
    registry,
  };
}
