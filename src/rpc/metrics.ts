/**
 * The endpoint's metrics (prom-client), scraped with the others at /metrics (server.ts merges the
 * registry an endpoint returns):
 * - rpc_requests_total{transport, method, code}: each request answered, single or in a batch; `code`
 *   the JSON-RPC error code, or "ok"; `method` one of the methods known here, else "other" (a bounded
 *   label whatever clients send), "none" for a body refused before any request was read from it;
 * - rpc_request_duration_seconds{transport, method}: from the request to its answer's last byte
 *   handed on (a streamed eth_getLogs included);
 * - rpc_websocket_connections, rpc_subscriptions, rpc_filters_installed (filters kept in process;
 *   where Redis keeps them it counts none): what is open now.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MethodAnswer } from './answer.ts';
import { METHODS } from './methods.ts';

export type Transport = 'http' | 'ws';

const KNOWN = new Set([...METHODS.keys(), 'eth_subscribe', 'eth_unsubscribe']);
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 60];

/** A method's label: its name when known here, else "other". */
export const methodLabel = (method: unknown): string => (typeof method === 'string' && KNOWN.has(method) ? method : 'other');

/** What the gauges read when scraped (set once the WebSocket and the filter stores exist). */
export interface OpenCounts {
  connections?: () => number;
  subscriptions?: () => number;
  filters?: () => number;
}

export class RpcMetrics {
  readonly registry = new Registry();
  readonly open: OpenCounts = {};
  private readonly requests: Counter<'transport' | 'method' | 'code'>;
  private readonly durations: Histogram<'transport' | 'method'>;

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'rpc_requests_total', help: 'JSON-RPC requests answered, by method and outcome (error code or ok)', labelNames: ['transport', 'method', 'code'], registers });
    this.durations = new Histogram({ name: 'rpc_request_duration_seconds', help: 'Time from a JSON-RPC request to its answer written', labelNames: ['transport', 'method'], buckets: BUCKETS, registers });
    const open = this.open;
    const gauge = (name: string, help: string, read: () => number | undefined) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read() ?? 0);
        },
      });
    gauge('rpc_websocket_connections', 'WebSocket connections open on /rpc', () => open.connections?.());
    gauge('rpc_subscriptions', 'eth_subscribe subscriptions open', () => open.subscriptions?.());
    gauge('rpc_filters_installed', 'Filters installed in this process (none counted where Redis keeps them)', () => open.filters?.());
  }

  /** One request answered. */
  observe(transport: Transport, method: string, code: number | 'ok', seconds: number): void {
    this.requests.inc({ transport, method, code: String(code) });
    this.durations.observe({ transport, method }, seconds);
  }

  /** A clock started for one request: `done(code)` counts it once (later calls count nothing). */
  start(transport: Transport, method: unknown): (code: number | 'ok') => void {
    const began = performance.now();
    const label = methodLabel(method);
    let counted = false;
    return (code) => {
      if (counted) return;
      counted = true;
      this.observe(transport, label, code, (performance.now() - began) / 1000);
    };
  }
}

/**
 * The answer, counted by `done` once its last page is handed on (or its error thrown while its
 * pages are read: `codeOf`); an answer that is one JSON text at once.
 */
export function measured(answer: MethodAnswer, done: (code: number | 'ok') => void, codeOf: (err: unknown) => number): MethodAnswer {
  if ('json' in answer) {
    done('ok');
    return answer;
  }
  const pages = (async function* () {
    try {
      yield* answer.pages;
    } catch (err) {
      done(codeOf(err));
      throw err;
    }
  })();
  return {
    pages,
    finish: async () => {
      try {
        await answer.finish?.();
      } catch (err) {
        done(codeOf(err));
        throw err;
      }
      done('ok');
    },
  };
}
