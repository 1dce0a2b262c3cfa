/**
 * Load benchmark for the contract routes (issue #6).
 *
 *   npm run bench -- run --url-file ../shared/bench/urls.txt --base http://127.0.0.1:5551 \
 *     --connections 16 --duration 30 [--warmup 5] [--pid N | --start "<server command>"] [--json out.json]
 *
 * Sends the URL list round-robin (every connection walks the whole list, each from its own offset, so
 * the mix is uniform over the URLs), or with --mix zipf skewed by popularity rank (line order) plus a
 * hot set polled by every client (--hot-file), with autocannon at a fixed concurrency for a fixed duration, and
 * reports per endpoint (classified by path) and in total: requests/s, p50/p90/p99/max latency, non-2xx,
 * 5xx and connection errors; with --pid or --start also the server process tree's CPU and RSS; with the
 * response cache on, its hit ratio per tier (from the server's /metrics).
 * See bench/README.md.
 */
import { cpus, totalmem, availableParallelism, tmpdir } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Fail, numberOptions } from '../lib/cli.ts';
import { type OptionsConfig, type Values, defineScenario } from '../lib/scenario.ts';
import { SERVER_OPTIONS, SERVER_USAGE, serverTarget } from '../lib/serverOptions.ts';
import type { LoopDelay } from '../lib/loopDelay.ts';
import { type LoadResult, preflight, runLoad } from '../lib/mixLoad.ts';
import { ProcessSampler, type ProcessReport, processExists } from '../lib/proc.ts';
import { type StartedServer, startServer } from '../lib/server.ts';
import { type Summary, summarize } from '../lib/stats.ts';
import { type CacheReport, cacheReport, scrapeCacheCounters } from '../lib/cacheMetrics.ts';
import { ENDPOINTS, ENDPOINT_LABELS, type Endpoint, classify, readUrlFile } from '../lib/urls.ts';
import { seededRandom, zipfSampler } from '../lib/workload.ts';
import { CONNECTIONS, DURATION, URL_FILE, WARMUP, withDefault } from '../lib/options.ts';

const USAGE = `  --url-file FILE      request paths, one per line ('#' comments and blank lines ignored)   (required)
${SERVER_USAGE}
  --connections N[,M]  concurrent connections; a comma list runs each level in turn   (default 16)
  --duration S         measured seconds per level                                      (default 30)
  --warmup S           unmeasured seconds before each level (0: none)                   (default 5)
  --only LIST          comma list of endpoints to keep from the file (${ENDPOINTS.join(',')})
  --mix MODE           round-robin (every URL equally often) or zipf                   (default round-robin)
  --zipf-s S           zipf exponent: rank k (line k of the file) is asked for in proportion to 1/k^S (default 1)
  --hot-file FILE      zipf: URLs every client polls (the newest blocks), asked for with --hot-share
  --hot-share P        zipf: share of requests that go to the hot set (0..1)                (default 0.2)
  --seed N             zipf: seed of the request sequences                                    (default 1)
  --skip-preflight     do not request every URL once before the run (it would warm a cache)
  --header "K: V"      extra request header (repeatable), e.g. --header "accept-encoding: gzip"
  --timeout S          per-request timeout, counted as an error                        (default 10)
  --sample-ms N        CPU/RSS sampling interval                                      (default 500)
  --top N              slowest URLs (by p99) to list                                    (default 8)
  --json FILE          also write every number (per endpoint, per URL, CPU/RSS series) as JSON`;

interface Options {
  urlFile: string;
  base: URL;
  connections: number[];
  duration: number;
  warmup: number;
  pid?: number;
  start?: string;
  startTimeout: number;
  serverLog?: string;
  only?: Endpoint[];
  mix: 'round-robin' | 'zipf';
  zipfS: number;
  hotFile?: string;
  hotShare: number;
  seed: number;
  skipPreflight: boolean;
  headers: Record<string, string>;
  timeout: number;
  sampleMs: number;
  top: number;
  json?: string;
}

const OPTIONS = {
  ...URL_FILE,
  ...SERVER_OPTIONS,
  ...withDefault(CONNECTIONS, '16'),
  ...DURATION,
  ...WARMUP,
  only: { type: 'string' },
  mix: { type: 'string', default: 'round-robin' },
  'zipf-s': { type: 'string', default: '1' },
  'hot-file': { type: 'string' },
  'hot-share': { type: 'string', default: '0.2' },
  seed: { type: 'string', default: '1' },
  'skip-preflight': { type: 'boolean', default: false },
  header: { type: 'string', multiple: true, default: [] },
  timeout: { type: 'string' },
  'sample-ms': { type: 'string' },
  top: { type: 'string' },
  json: { type: 'string' },
} satisfies OptionsConfig;

function parseOptions(values: Values<typeof OPTIONS>, usage: Fail): Options {
  const { integerAtLeast } = numberOptions(usage);
  if (!values['url-file']) usage('--url-file is required');
  const server = serverTarget(values, usage);
  const connections = values.connections!.split(',').map((c) => integerAtLeast('connections', c.trim(), 16));
  let only: Endpoint[] | undefined;
  if (values.only) {
    only = values.only.split(',').map((e) => e.trim()) as Endpoint[];
    for (const e of only) if (!ENDPOINTS.includes(e)) usage(`--only: unknown endpoint ${e} (${ENDPOINTS.join(', ')})`);
  }
  if (values.mix !== 'round-robin' && values.mix !== 'zipf') usage(`--mix must be round-robin or zipf, got ${values.mix}`);
  const zipfS = Number(values['zipf-s']);
  if (!(zipfS >= 0 && zipfS <= 10)) usage(`--zipf-s must be a number from 0 to 10, got ${values['zipf-s']}`);
  const hotShare = Number(values['hot-share']);
  if (!(hotShare >= 0 && hotShare <= 1)) usage(`--hot-share must be a number from 0 to 1, got ${values['hot-share']}`);
  if (values['hot-file'] && values.mix !== 'zipf') usage('--hot-file needs --mix zipf');
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) usage(`--header must look like "name: value", got ${h}`);
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  return {
    urlFile: values['url-file'],
    ...server,
    connections,
    duration: integerAtLeast('duration', values.duration, 30),
    warmup: integerAtLeast('warmup', values.warmup, 5, 0),
    only,
    mix: values.mix,
    zipfS,
    hotFile: values['hot-file'],
    hotShare: values['hot-file'] ? hotShare : 0,
    seed: integerAtLeast('seed', values.seed, 1, 0),
    skipPreflight: values['skip-preflight']!,
    headers,
    timeout: integerAtLeast('timeout', values.timeout, 10),
    sampleMs: integerAtLeast('sample-ms', values['sample-ms'], 500, 50),
    top: integerAtLeast('top', values.top, 8, 0),
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------

interface LevelReport {
  connections: number;
  duration: number;
  warmup: { seconds: number; requests: number; rps: number; errors: number } | null;
  seconds: number;
  endpoints: Partial<Record<Endpoint | 'total', Summary>>;
  urls: (Summary & { path: string; endpoint: Endpoint; expectedStatus: number | null })[];
  errors: number;
  timeouts: number;
  unattributed: number;
  /** responses whose status differs from the one the URL answered in the pre-flight pass */
  unexpectedStatus: number;
  autocannon: LoadResult['autocannon'];
  loadGeneratorCpuPercent: number;
  /** the load generator's own event-loop lateness during the measured window */
  loadGeneratorLoopDelay: LoopDelay;
  server: ProcessReport | null;
  /** host busy time not explained by the server tree, postgres and this load generator, % of one core */
  otherCpuPercent: number | null;
  /** the response cache during the measured window (null when the server has none) */
  cache: CacheReport | null;
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');

function table(rows: string[][], leftColumns: number[] = [0]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const cell = (text: string, c: number) => (leftColumns.includes(c) ? text.padEnd(widths[c]!) : text.padStart(widths[c]!));
  return rows.map((r) => r.map(cell).join('  ').trimEnd()).join('\n');
}

function printLevel(r: LevelReport, top: number): void {
  const out: string[] = [];
  out.push(`\n== ${r.connections} connections, ${r.duration} s measured (${r.seconds.toFixed(2)} s wall)` +
    (r.warmup ? ` after ${r.warmup.seconds} s warm-up (${f0(r.warmup.rps)} req/s)` : ''));
  const rows = [['endpoint', 'requests', 'req/s', 'mean ms', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'non-2xx', '5xx', 'errors']];
  for (const key of [...ENDPOINTS, 'total'] as const) {
    const s = r.endpoints[key];
    if (!s) continue;
    rows.push([key, String(s.requests), f0(s.rps), f1(s.mean), f1(s.p50), f1(s.p90), f1(s.p99), f1(s.max), String(s.non2xx), String(s.status5xx), String(s.errors)]);
  }
  out.push(table(rows));
  out.push(`status codes: ${Object.entries(r.endpoints.total?.statuses ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ')}; ` +
    `unexpected vs pre-flight: ${r.unexpectedStatus}; connection errors ${r.errors} (timeouts ${r.timeouts})` +
    (r.unattributed ? `; UNATTRIBUTED responses ${r.unattributed}` : ''));
  out.push(`autocannon cross-check: ${f0(r.autocannon.rpsAverage)} req/s, p50 ${r.autocannon.latencyP50} / p90 ${r.autocannon.latencyP90} / p99 ${r.autocannon.latencyP99} ms; load generator CPU ${f0(r.loadGeneratorCpuPercent)}% of a core, ` +
    `its event loop late by p50 ${f1(r.loadGeneratorLoopDelay.p50)} / p99 ${f1(r.loadGeneratorLoopDelay.p99)} / max ${f1(r.loadGeneratorLoopDelay.max)} ms`);
  if (r.cache) {
    const c = r.cache;
    const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '-');
    const computed = Object.entries(c.computed).map(([k, v]) => `${k} ${v}`).join(', ');
    out.push(`response cache (one process's /metrics): hit ratio ${pct(c.hitRatio)}; in-process ${c.localHits} hits (${pct(c.localHitRatio)}), ` +
      `Redis ${c.redisHits} hits (${pct(c.redisHitRatio)} of its lookups), coalesced ${c.coalesced}, computed: ${computed || 'none'}; Redis errors ${c.redisErrors}`);
  }
  if (r.server) {
    const s = r.server;
    const tree = s.processes.map((p) => `${p.pid} ${p.comm} ${f1(p.rssMb)} MB`).join(', ');
    out.push(`server pid ${s.pid}, process tree at the end: ${tree}`);
    out.push(`server tree: CPU ${f0(s.cpuPercent)}% of a core avg (max ${f0(s.cpuPercentMaxInterval)}% over one sample), ` +
      `RSS start ${f1(s.rssStartMb)} MB, end ${f1(s.rssEndMb)} MB, max ${f1(s.rssMaxMb)} MB (before any load ${f1(s.rssInitialMb)} MB)`);
    out.push(`host: all postgres processes ${f0(s.postgresCpuPercent)}% of a core; all ${s.cores} cores ${f0(s.hostCpuPercent)}% busy; ` +
      `everything else (other users' work) ~${f0(r.otherCpuPercent ?? NaN)}% of a core`);
  }
  if (top > 0) {
    out.push(`slowest URLs by p99:`);
    const slow = [...r.urls].sort((a, b) => b.p99 - a.p99).slice(0, top);
    out.push(table([['  p99 ms', 'mean ms', 'status', 'url'], ...slow.map((u) => [`  ${f1(u.p99)}`, f1(u.mean), Object.keys(u.statuses).join('/'), u.path])], [3]));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(opts: Options, usage: Fail): Promise<void> {
  let paths = readUrlFile(resolve(opts.urlFile));
  let hot = opts.hotFile ? readUrlFile(resolve(opts.hotFile)) : [];
  if (opts.only) {
    paths = paths.filter((p) => opts.only!.includes(classify(p)));
    hot = hot.filter((p) => opts.only!.includes(classify(p)));
  }
  if (paths.length === 0) usage('no URL left after --only');
  const ranked = paths.length;
  // the zipf mix draws ranks 0..ranked-1 from the URL file and ranked.. from the hot set
  paths = [...paths, ...hot];
  const sampler =
    opts.mix === 'zipf'
      ? (connection: number) => zipfSampler(ranked, opts.zipfS, hot.length, opts.hotShare, seededRandom(opts.seed * 1_000_003 + connection))
      : undefined;
  const endpointOf = paths.map(classify);

  const machine = {
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
  };
  process.stdout.write(
    `machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, node ${machine.node}\n` +
      `mix: ${paths.length} URLs from ${opts.urlFile}${hot.length ? ` and ${opts.hotFile}` : ''} (${ENDPOINTS.map((e) => `${e} ${endpointOf.filter((x) => x === e).length}`).join(', ')}), ` +
        `${opts.mix === 'zipf' ? `zipf s=${opts.zipfS}${hot.length ? `, ${opts.hotShare * 100}% to the ${hot.length} hot URLs` : ''}` : 'round-robin'}; target ${opts.base.origin}\n`,
  );

  let server: StartedServer | undefined;
  let pid = opts.pid;
  const stopServer = async () => {
    if (!server) return;
    const s = server;
    server = undefined;
    const how = await s.stop();
    process.stdout.write(`server stopped (${how}); its output is in ${s.logFile}\n`);
  };
  const onSignal = () => {
    void stopServer().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    if (opts.start) {
      const logFile = opts.serverLog ?? join(tmpdir(), `cqs-run-server-${process.pid}.log`);
      process.stdout.write(`starting: ${opts.start}\n`);
      const t = Date.now();
      server = await startServer(opts.start, new URL(paths[0]!, opts.base).href, logFile, opts.startTimeout * 1000);
      pid = server.pid;
      process.stdout.write(`server pid ${pid} answered after ${((Date.now() - t) / 1000).toFixed(1)} s (output: ${logFile})\n`);
    } else if (pid !== undefined && !processExists(pid)) {
      throw new Error(`no process ${pid}`);
    }
    const processSampler = pid !== undefined ? new ProcessSampler(pid, opts.sampleMs) : undefined;

    let expected: (number | null)[] = paths.map(() => null);
    if (opts.skipPreflight) {
      process.stdout.write('pre-flight skipped: unexpected statuses are not counted\n');
    } else {
      const tPre = Date.now();
      expected = await preflight(opts.base, paths, opts.headers);
      const byStatus = new Map<number | null, number>();
      for (const s of expected) byStatus.set(s, (byStatus.get(s) ?? 0) + 1);
      process.stdout.write(`pre-flight (one request per URL, ${((Date.now() - tPre) / 1000).toFixed(1)} s): ${[...byStatus].map(([k, v]) => `${k ?? 'failed'}: ${v}`).join(', ')}\n`);
    }

    const levels: LevelReport[] = [];
    for (const connections of opts.connections) {
      let warmup: LevelReport['warmup'] = null;
      if (opts.warmup > 0) {
        const w = await runLoad(opts.base, paths, connections, opts.warmup, opts, sampler);
        const requests = w.perUrl.reduce((a, u) => a + u.count, 0);
        warmup = { seconds: opts.warmup, requests, rps: requests / w.seconds, errors: w.errors };
      }
      const cacheBefore = await scrapeCacheCounters(opts.base);
      processSampler?.start();
      const load = await runLoad(opts.base, paths, connections, opts.duration, opts, sampler);
      const serverReport = processSampler?.stop() ?? null;
      const cacheAfter = cacheBefore && (await scrapeCacheCounters(opts.base));

      const endpoints: LevelReport['endpoints'] = {};
      for (const e of ENDPOINTS) {
        const group = load.perUrl.filter((_, i) => endpointOf[i] === e);
        if (group.length) endpoints[e] = summarize(group, load.seconds);
      }
      endpoints.total = summarize(load.perUrl, load.seconds);
      let unexpectedStatus = 0;
      load.perUrl.forEach((u, i) => {
        if (opts.skipPreflight) return;
        for (const [code, c] of u.statuses) if (code !== expected[i]) unexpectedStatus += c;
      });
      const report: LevelReport = {
        connections,
        duration: opts.duration,
        warmup,
        seconds: load.seconds,
        endpoints,
        urls: load.perUrl.map((u, i) => ({ path: u.path, endpoint: endpointOf[i]!, expectedStatus: expected[i] ?? null, ...summarize([u], load.seconds) })),
        errors: load.errors,
        timeouts: load.timeouts,
        unattributed: load.unattributed,
        unexpectedStatus,
        autocannon: load.autocannon,
        loadGeneratorCpuPercent: load.loadGeneratorCpuPercent,
        loadGeneratorLoopDelay: load.loadGeneratorLoopDelay,
        server: serverReport,
        cache: cacheBefore && cacheAfter ? cacheReport(cacheBefore, cacheAfter) : null,
        otherCpuPercent: serverReport
          ? Math.round(
              serverReport.hostCpuPercent * serverReport.cores -
                serverReport.cpuPercent -
                serverReport.postgresCpuPercent -
                load.loadGeneratorCpuPercent,
            )
          : null,
      };
      levels.push(report);
      printLevel(report, opts.top);
    }

    if (opts.json) {
      const doc = {
        at: new Date().toISOString(),
        machine,
        options: {
          urlFile: opts.urlFile,
          base: opts.base.origin,
          duration: opts.duration,
          warmup: opts.warmup,
          start: opts.start ?? null,
          pid: pid ?? null,
          only: opts.only ?? null,
          mix: opts.mix,
          zipfS: opts.mix === 'zipf' ? opts.zipfS : null,
          hotFile: opts.hotFile ?? null,
          hotShare: opts.hotFile ? opts.hotShare : null,
          seed: opts.mix === 'zipf' ? opts.seed : null,
          preflight: !opts.skipPreflight,
          headers: opts.headers,
          timeout: opts.timeout,
        },
        endpoints: ENDPOINT_LABELS,
        levels,
      };
      writeFileSync(opts.json, `${JSON.stringify(doc, null, 2)}\n`);
      process.stdout.write(`\nwrote ${opts.json}\n`);
    }
  } finally {
    await stopServer();
  }
}

export default defineScenario({
  usage: USAGE,
  options: OPTIONS,
  run: ({ values, fail }) => main(parseOptions(values, fail), fail),
});
