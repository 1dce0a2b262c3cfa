/**
 * The bench mix's load client (bench/scenarios/run.ts, bench/scenarios/hostile.ts): autocannon over a URL list at a fixed
 * number of connections for a fixed time, every response attributed to its URL, and the pre-flight
 * pass that gives each URL its expected status.
 */
import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { type LoopDelay, loopDelayMonitor } from './loopDelay.ts';
import { type UrlStats, newUrlStats, recordResponse } from './stats.ts';

export interface LoadResult {
  seconds: number;
  perUrl: UrlStats[];
  /** connection errors + timeouts as autocannon counts them */
  errors: number;
  timeouts: number;
  /** responses that could not be matched to a URL (should be 0) */
  unattributed: number;
  autocannon: { rpsAverage: number; latencyP50: number; latencyP90: number; latencyP99: number; non2xx: number; sent: number };
  loadGeneratorCpuPercent: number;
  loadGeneratorLoopDelay: LoopDelay;
}

/**
 * Keeps autocannon from decoding every response body into a string. Its client appends each body chunk
 * to a string (`pipelinedRequests.addBody`, autocannon 8-9) for `onResponse`, `expectBody` and
 * `verifyBody`; the bench reads only statuses, sizes and times (sizes come from `addByteCount`), and
 * that decoding and the garbage it leaves cost the load generator 3-6 points of a core at this
 * service's rate on a two-core machine (28-29 % of a core at 1,400-1,600 requests/s, 23-25 % without
 * it): a cost that grows with the server's throughput, so it weighed most on the faster server.
 * An autocannon without the method fails here rather than measuring with the cost back.
 */
export function discardBodies(client: autocannon.Client): void {
  const queue = (client as unknown as { pipelinedRequests?: { addBody?: (data: Buffer) => void } }).pipelinedRequests;
  if (typeof queue?.addBody !== 'function') throw new Error('autocannon changed: its client has no pipelinedRequests.addBody to replace');
  queue.addBody = () => {};
}

/**
 * One autocannon run over the mix. Every connection gets its own copy of the request list rotated to
 * its own offset and walks it round-robin; the `onResponse` hook of each request notes which URL the
 * response that autocannon is about to report (synchronously, as its `response` event) belongs to.
 * Errors are attributed through the per-connection count of requests sent (k-th request = k-th URL of
 * the connection's rotation; with pipelining 1 the outstanding request is the last one sent).
 * With `sampler` (the zipf mix) each connection instead draws every next URL from its own sequence,
 * and the outstanding request is the last one drawn.
 */
export function runLoad(
  base: URL,
  paths: string[],
  connections: number,
  duration: number,
  opts: { timeout: number; headers: Record<string, string> },
  sampler?: (connection: number) => () => number,
): Promise<LoadResult> {
  const n = paths.length;
  const perUrl = paths.map(newUrlStats);
  let current = -1;
  let unattributed = 0;
  let clientNo = 0;
  const makeRequests = (offset: number): autocannon.Request[] =>
    paths.map((_, k) => {
      const idx = (k + offset) % n;
      return { method: 'GET', path: paths[idx], onResponse: () => void (current = idx) };
    });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const loopDelay = loopDelayMonitor();
  return new Promise((resolvePromise, reject) => {
    const instance = autocannon(
      {
        url: base.origin,
        connections,
        duration,
        pipelining: 1,
        timeout: opts.timeout,
        headers: opts.headers,
        requests: makeRequests(0),
        setupClient: (client) => {
          discardBodies(client);
          if (sampler) {
            const draw = sampler(clientNo++);
            let last = 0;
            const events = client as unknown as EventEmitter;
            events.on('timeout', () => void perUrl[last]!.errors++);
            events.on('connError', () => void perUrl[last]!.errors++);
            client.setRequests([
              {
                method: 'GET',
                setupRequest: (request) => ({ ...request, path: paths[(last = draw())]! }),
                onResponse: () => void (current = last),
              },
            ]);
            return;
          }
          const offset = Math.floor((clientNo++ * n) / connections) % n;
          const order = makeRequests(offset).map((r) => paths.indexOf(r.path!));
          let sent = 0;
          const outstanding = () => order[(Math.max(1, sent) - 1) % n]!;
          // events autocannon's Client emits but its type declarations leave out
          const events = client as unknown as EventEmitter;
          events.on('request', () => void sent++);
          events.on('timeout', () => void perUrl[outstanding()]!.errors++);
          events.on('connError', () => void perUrl[outstanding()]!.errors++);
          client.setRequests(makeRequests(offset));
        },
      },
      (err: Error | null, result: autocannon.Result) => {
        const generatorLoopDelay = loopDelay();
        if (err) return reject(err);
        const cpu = process.cpuUsage(cpu0);
        const wall = Number(process.hrtime.bigint() - t0) / 1e9;
        resolvePromise({
          seconds: result.duration,
          perUrl,
          errors: result.errors,
          timeouts: result.timeouts,
          unattributed,
          autocannon: {
            rpsAverage: result.requests.average,
            latencyP50: result.latency.p50,
            latencyP90: result.latency.p90,
            latencyP99: result.latency.p99,
            non2xx: result.non2xx,
            sent: result.requests.sent,
          },
          loadGeneratorCpuPercent: Math.round(((cpu.user + cpu.system) / 1e6 / wall) * 1000) / 10,
          loadGeneratorLoopDelay: generatorLoopDelay,
        });
      },
    );
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      if (current < 0) {
        unattributed++;
        return;
      }
      recordResponse(perUrl[current]!, statusCode, responseTime, resBytes);
      current = -1;
    });
  });
}

/** Requests every URL once; its status is the one the URL is expected to answer (null: no answer). */
export async function preflight(base: URL, paths: string[], headers: Record<string, string>): Promise<(number | null)[]> {
  const statuses: (number | null)[] = [];
  let failures = 0;
  for (const path of paths) {
    try {
      const res = await fetch(new URL(path, base), { headers, signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status >= 500) process.stderr.write(`warning: pre-flight ${path} -> HTTP ${res.status}\n`);
    } catch (err) {
      failures++;
      statuses.push(null);
      process.stderr.write(`warning: pre-flight ${path} -> ${(err as Error).message}\n`);
    }
  }
  if (failures === paths.length) throw new Error(`the server at ${base.origin} does not answer`);
  return statuses;
}
