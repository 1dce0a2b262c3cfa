#!/usr/bin/env -S npx tsx
/**
 * Overload (issue 16): more connections than the service can serve, to see it shed load with
 * `503` + `Retry-After` while the requests it admits keep a bounded latency, without crashing and
 * with bounded memory.
 *
 *   DATABASE_URL=postgres://... npm run overload -- --url-file ../shared/bench/urls.txt --connections 64,256
 *
 * Builds and starts the service (dist/cli.js serve, one process, default configuration) on --port,
 * and for each level of --connections runs autocannon for --duration seconds (after --warmup),
 * counting every answer by status with its latency. A probe fetches a URL every 100 ms meanwhile to
 * look at the 503s themselves (Retry-After, the mirror body). RSS of the server is sampled every
 * second. After the last level it checks that the server still answers (liveness, and the first URL
 * with its usual status within 5 s). PASS (exit code 0) when no answer is a 5xx other than 503,
 * every probed 503 has Retry-After and the mirror body, the admitted (non-503) requests' p99 stays
 * within --max-p99 ms at every level, RSS within --max-rss MB, and the server still serves after.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { type Fail, MIRROR_503, numberOptions, usageFailure } from './lib/cli.ts';
import { sampleTree } from './lib/proc.ts';
import { buildService, localService, startLocalService } from './lib/server.ts';
import { percentile } from './lib/stats.ts';
import { readUrlFile } from './lib/urls.ts';

const USAGE = `Usage: DATABASE_URL=postgres://... npm run overload -- --url-file FILE [options]

  --url-file FILE      request paths                                    (default bench/urls-demo.txt)
  --connections N[,M]  connection levels, in turn                                   (default 64,256)
  --duration S         measured seconds per level                                        (default 30)
  --warmup S           unmeasured seconds before each level                               (default 5)
  --port P             loopback port of the service                                    (default 5616)
  --max-p99 MS         bound on the p99 of the admitted requests                       (default 2000)
  --max-rss MB         bound on the server's RSS                                          (default 512)
  --timeout S          per-request timeout of the load, counted as an error               (default 30)`;

const fail: Fail = usageFailure(USAGE);
const { positive } = numberOptions(fail);

interface Level {
  connections: number;
  requests: number;
  admitted: number[];
  shed: number[];
  statuses: Map<number, number>;
  errors: number;
  timeouts: number;
}

function load(base: string, paths: string[], connections: number, seconds: number, timeout: number, level?: Level): Promise<autocannon.Result> {
  let clientNo = 0;
  const rotated = (offset: number): autocannon.Request[] => paths.map((_, k) => ({ method: 'GET', path: paths[(k + offset) % paths.length] }));
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base, connections, duration: seconds, pipelining: 1, timeout, requests: rotated(0),
        setupClient: (client) => client.setRequests(rotated(Math.floor((clientNo++ * paths.length) / connections))),
      },
      (err: Error | null, result: autocannon.Result) => (err ? reject(err) : resolve(result)),
    );
    if (level) {
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        level.statuses.set(status, (level.statuses.get(status) ?? 0) + 1);
        (status === 503 ? level.shed : level.admitted).push(ms);
      });
    }
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'url-file': { type: 'string', default: 'bench/urls-demo.txt' },
      connections: { type: 'string', default: '64,256' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      port: { type: 'string' },
      'max-p99': { type: 'string' },
      'max-rss': { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!process.env.DATABASE_URL) fail('DATABASE_URL must name the database to serve');
  const levels = values.connections!.split(',').map((c) => Math.round(positive('connections', c, 0)));
  const duration = positive('duration', values.duration, 30);
  const warmup = Number(values.warmup ?? 5);
  const port = Math.round(positive('port', values.port, 5616));
  const maxP99 = positive('max-p99', values['max-p99'], 2000);
  const maxRss = positive('max-rss', values['max-rss'], 512);
  const timeout = positive('timeout', values.timeout, 30);
  const paths = readUrlFile(values['url-file']!);

  if (!buildService()) fail('npm run build failed');
  const service = localService('overload', port);
  const { base, logFile } = service;
  const server = await startLocalService(service);
  const expected = await fetch(`${base}${paths[0]}`).then(async (r) => (await r.arrayBuffer(), r.status));

  let rssMaxMb = 0;
  const rssSeries: number[] = [];
  const sampler = setInterval(() => {
    const tree = sampleTree(server.pid);
    if (tree) rssSeries.push(tree.rssKb / 1024);
    rssMaxMb = Math.max(rssMaxMb, tree ? tree.rssKb / 1024 : 0);
  }, 1000);
  const probe = { shed: 0, withRetryAfter: 0, mirrorBody: 0 };
  let probing = true;
  const prober = (async () => {
    while (probing) {
      try {
        const res = await fetch(`${base}${paths[0]}`, { signal: AbortSignal.timeout(timeout * 1000) });
        const body = await res.text();
        if (res.status === 503) {
          probe.shed++;
          if (res.headers.get('retry-after')) probe.withRetryAfter++;
          if (body === MIRROR_503) probe.mirrorBody++;
        }
      } catch {
        /* counted by the load's errors */
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  const results: Level[] = [];
  let alive = false;
  let recovered = false;
  try {
    for (const connections of levels) {
      if (warmup > 0) await load(base, paths, connections, warmup, timeout);
      const level: Level = { connections, requests: 0, admitted: [], shed: [], statuses: new Map(), errors: 0, timeouts: 0 };
      const result = await load(base, paths, connections, duration, timeout, level);
      level.requests = result.requests.total;
      level.errors = result.errors;
      level.timeouts = result.timeouts;
      results.push(level);
    }
    probing = false;
    await prober;
    alive = await fetch(`${base}/health/liveness`).then((r) => r.status === 200, () => false);
    const until = Date.now() + 5000;
    while (!recovered && Date.now() < until) {
      recovered = await fetch(`${base}${paths[0]}`).then(async (r) => (await r.arrayBuffer(), r.status === expected), () => false);
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    probing = false;
    clearInterval(sampler);
    process.stderr.write(`server: ${await server.stop()} (log: ${logFile})\n`);
  }

  const problems: string[] = [];
  process.stdout.write('connections  answers   req/s  admitted  shed %  admitted p50/p99/max ms  shed p99 ms  other 5xx  errors  timeouts\n');
  for (const l of results) {
    const admitted = Float64Array.from(l.admitted).sort();
    const shed = Float64Array.from(l.shed).sort();
    const other5xx = [...l.statuses].filter(([s]) => s >= 500 && s !== 503).reduce((n, [, c]) => n + c, 0);
    const answers = admitted.length + shed.length;
    const p99 = percentile(admitted, 99);
    process.stdout.write(
      `${String(l.connections).padStart(11)} ${String(answers).padStart(8)} ${String(Math.round(answers / duration)).padStart(7)} ` +
        `${String(admitted.length).padStart(9)} ${((100 * shed.length) / Math.max(1, answers)).toFixed(1).padStart(7)} ` +
        `${`${percentile(admitted, 50).toFixed(0)}/${p99.toFixed(0)}/${(admitted.at(-1) ?? NaN).toFixed(0)}`.padStart(24)} ` +
        `${percentile(shed, 99).toFixed(0).padStart(12)} ${String(other5xx).padStart(10)} ${String(l.errors).padStart(7)} ${String(l.timeouts).padStart(9)}\n`,
    );
    process.stdout.write(`             statuses: ${[...l.statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}: ${c}`).join(', ')}\n`);
    if (other5xx > 0) problems.push(`${other5xx} answers 5xx other than 503 at ${l.connections}`);
    if (!(p99 <= maxP99)) problems.push(`admitted p99 ${p99.toFixed(0)} ms at ${l.connections} connections (bound ${maxP99})`);
    if (l.errors + l.timeouts > 0) problems.push(`${l.errors} errors, ${l.timeouts} timeouts at ${l.connections}`);
  }
  if (probe.shed !== probe.withRetryAfter || probe.shed !== probe.mirrorBody) problems.push(`probed 503s: ${JSON.stringify(probe)}`);
  if (rssMaxMb > maxRss) problems.push(`RSS ${rssMaxMb.toFixed(0)} MB (bound ${maxRss})`);
  if (!alive || !recovered) problems.push(`after the load: liveness ${alive ? 'answers' : 'does not answer'}, ${recovered ? '' : 'no '}usual answer within 5 s`);
  const log = readFileSync(logFile, 'utf8');
  const shedLines = log.split('\n').filter((line) => line.includes('shed')).length;
  process.stdout.write(
    `probe: ${probe.shed} 503s seen, ${probe.withRetryAfter} with Retry-After, ${probe.mirrorBody} with the mirror body\n` +
      `RSS: max ${rssMaxMb.toFixed(0)} MB, last ${(rssSeries.at(-1) ?? NaN).toFixed(0)} MB; server log lines about shedding: ${shedLines}; ` +
      `after the load: liveness ${alive ? '200' : 'failed'}, usual answer ${recovered ? 'within 5 s' : 'not within 5 s'}\n` +
      `${problems.length ? `FAIL: ${problems.join('; ')}` : 'PASS'}\n`,
  );
  process.exitCode = problems.length ? 1 : 0;
}

main().catch((err) => {
  process.stderr.write(`error: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
