/**
 * A closed-loop JSON-RPC load with autocannon: every request of a run is the next body of a
 * generator shared by all connections, so no two calls in a run are the same and neither side's
 * response cache answers them. Bodies are not decoded (bench/lib/mixLoad.ts's discardBodies); what
 * the calls answer is checked before the load (bench/rpc/load.ts).
 */
import autocannon from 'autocannon';
import { discardBodies } from '../lib/mixLoad.ts';

export interface CannonResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export function cannon(url: string, next: () => unknown, connections: number, seconds: number, timeoutSeconds: number): Promise<CannonResult> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.origin,
        connections,
        duration: seconds,
        pipelining: 1,
        timeout: timeoutSeconds,
        headers: { 'content-type': 'application/json' },
        requests: [{ method: 'POST', path: target.pathname, setupRequest: (request) => ({ ...request, body: JSON.stringify(next()) }) }],
        setupClient: discardBodies,
      },
      (err: Error | null, r: autocannon.Result) => {
        if (err) return reject(err);
        resolve({
          requests: r.requests.total,
          rps: Math.round((r.requests.total / r.duration) * 10) / 10,
          p50: r.latency.p50,
          p99: r.latency.p99,
          max: r.latency.max,
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
        });
      },
    );
  });
}
