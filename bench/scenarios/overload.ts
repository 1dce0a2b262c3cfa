/**
 * Overload (issues 16 and 31): more connections than the service can serve, with clients that retry
 * a 503 at once and with clients that honour its Retry-After, to see that the goodput (the requests
 * admitted and answered per second) holds at the peak's, that the admitted requests keep a bounded
 * latency, and that memory stays bounded and no connection fails.
 *
 *   DATABASE_URL=postgres://... npm run bench -- overload --url-file ../shared/bench/urls.txt --connections 64,256,1024
 *
 * For each client model of --clients (bench/lib/loadClient.ts: `at-once`, `retry-after`, or `both`)
 * it builds and starts the service (dist/cli.js serve, one process, default configuration) afresh
 * on --port and runs each level of --connections for --duration seconds after --warmup (on the same
 * connections: a warm-up on connections of its own ended in a reconnection storm), counting
 * every answer by status with its latency. The first level is the peak: each level's goodput is
 * given as a ratio to it. A probe fetches a URL every 100 ms meanwhile to look at the 503s themselves
 * (Retry-After, the mirror body). RSS of the server is sampled every second. After the last level it
 * checks that the server still answers (liveness, and the first URL with its usual status within 5 s).
 *
 * PASS (exit code 0) when, for every model and level: no answer is a 5xx other than 503; every
 * probed 503 has Retry-After and the mirror body; the goodput is at least --min-goodput of the peak's;
 * the admitted requests' p99 is within --max-p99 ms; RSS within --max-rss MB; no connection error or
 * timeout at levels up to --max-connections (the server's server.maxConnections), and above it none
 * in the middle of an answer; and the server still serves after.
 */
import { readFileSync } from 'node:fs';
import { type Fail, MIRROR_503, numberOptions } from '../lib/cli.ts';
import { type ClientModel, type LoadResult, runLoad } from '../lib/loadClient.ts';
import { clockTicks, sampleTree } from '../lib/proc.ts';
import { buildService, localService, startLocalService } from '../lib/server.ts';
import { loopDelayMonitor } from '../lib/loopDelay.ts';
import { percentile } from '../lib/stats.ts';
import { readUrlFile } from '../lib/urls.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, DURATION, PORT, URL_FILE, WARMUP, DEMO_URL_FILE, withDefault } from '../lib/options.ts';

const USAGE = `  --url-file FILE      request paths                                    (default bench/urls-demo.txt)
  --connections N[,M]  connection levels, in turn; the first is the peak           (default 64,256,1024)
  --clients MODEL      at-once (a 503 is retried at once), retry-after (after Retry-After), or both
                                                                                        (default both)
  --duration S         measured seconds per level                                        (default 20)
  --warmup S           unmeasured seconds before each level                               (default 5)
  --port P             loopback port of the service                                    (default 5616)
  --min-goodput R      bound on each level's goodput as a share of the peak's            (default 0.8)
  --max-p99 MS         bound on the p99 of the admitted requests: the relay's wait     (default 10000)
  --max-rss MB         bound on the server's RSS                                          (default 400)
  --max-connections N  the server's server.maxConnections: no connection error up to it (default 1000)
  --timeout S          per-request timeout of the load, counted as an error               (default 30)`;

interface Level {
  connections: number;
  result: LoadResult;
  rssMaxMb: number;
  /** CPU of the server, of PostgreSQL and of this load generator, in % of a core; the load generator's event-loop delay p99 (ms). */
  cpu: { server: number; postgres: number; client: number; clientDelayP99Ms: number };
}

interface ModelRun {
  model: ClientModel;
  levels: Level[];
  probe: { shed: number; withRetryAfter: number; mirrorBody: number };
  alive: boolean;
  recovered: boolean;
  shedLogLines: number;
  stopped: string;
}

async function runModel(model: ClientModel, levels: number[], paths: string[], o: { port: number; duration: number; warmup: number; timeout: number }): Promise<ModelRun> {
  const service = localService(`overload-${model}`, o.port);
  const { base, logFile } = service;
  const server = await startLocalService(service);
  const expected = await fetch(`${base}${paths[0]}`).then(async (r) => (await r.arrayBuffer(), r.status));
  let rssMaxMb = 0;
  const sampler = setInterval(() => {
    const tree = sampleTree(server.pid);
    rssMaxMb = Math.max(rssMaxMb, tree ? tree.rssKb / 1024 : 0);
  }, 1000);
  const probe = { shed: 0, withRetryAfter: 0, mirrorBody: 0 };
  let probing = true;
  const prober = (async () => {
    while (probing) {
      try {
        const res = await fetch(`${base}${paths[0]}`, { signal: AbortSignal.timeout(o.timeout * 1000) });
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
  const run: ModelRun = { model, levels: [], probe, alive: false, recovered: false, shedLogLines: 0, stopped: '' };
  // the warm-up runs on the connections that are then measured (loadClient.ts: LoadOptions.warmupSeconds)
  const load = (connections: number, seconds: number, warmupSeconds: number) =>
    runLoad({ host: '127.0.0.1', port: o.port, paths, connections, seconds, warmupSeconds, model, timeoutMs: o.timeout * 1000 });
  try {
    for (const connections of levels) {
      process.stderr.write(`${model}: ${connections} connections\n`);
      const running = load(connections, o.duration, o.warmup);
      await new Promise((resolve) => setTimeout(resolve, o.warmup * 1000));
      rssMaxMb = 0;
      const server0 = sampleTree(server.pid);
      const client0 = process.cpuUsage();
      const started = performance.now();
      const loopDelay = loopDelayMonitor(10);
      const result = await running;
      const delay = loopDelay();
      const seconds = (performance.now() - started) / 1000;
      const server1 = sampleTree(server.pid);
      const client = process.cpuUsage(client0);
      const percent = (ticks: number) => (100 * ticks) / clockTicks() / seconds;
      const cpu = {
        server: server0 && server1 ? percent(server1.ticks - server0.ticks) : NaN,
        postgres: server0 && server1 ? percent(server1.postgresTicks - server0.postgresTicks) : NaN,
        client: (100 * (client.user + client.system)) / 1e6 / seconds,
        clientDelayP99Ms: delay.p99,
      };
      run.levels.push({ connections, result, rssMaxMb, cpu });
    }
    probing = false;
    await prober;
    run.alive = await fetch(`${base}/health/liveness`).then((r) => r.status === 200, () => false);
    const until = Date.now() + 5000;
    while (!run.recovered && Date.now() < until) {
      run.recovered = await fetch(`${base}${paths[0]}`).then(async (r) => (await r.arrayBuffer(), r.status === expected), () => false);
      if (!run.recovered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    probing = false;
    clearInterval(sampler);
    run.stopped = await server.stop();
    process.stderr.write(`server: ${run.stopped} (log: ${logFile})\n`);
  }
  run.shedLogLines = readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes('overloaded')).length;
  return run;
}

const count = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

const OPTIONS = {
  ...withDefault(URL_FILE, DEMO_URL_FILE),
  ...withDefault(CONNECTIONS, '64,256,1024'),
  clients: { type: 'string', default: 'both' },
  ...DURATION,
  ...WARMUP,
  ...PORT,
  'min-goodput': { type: 'string' },
  'max-p99': { type: 'string' },
  'max-rss': { type: 'string' },
  'max-connections': { type: 'string' },
  timeout: { type: 'string' },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const { positive } = numberOptions(fail);
  if (!process.env.DATABASE_URL) fail('DATABASE_URL must name the database to serve');
  const levels = values.connections!.split(',').map((c) => Math.round(positive('connections', c, 0)));
  const models: ClientModel[] = values.clients === 'both' ? ['at-once', 'retry-after'] : values.clients === 'at-once' || values.clients === 'retry-after' ? [values.clients] : fail(`--clients must be at-once, retry-after or both, got ${JSON.stringify(values.clients)}`);
  const duration = positive('duration', values.duration, 20);
  const warmup = Number(values.warmup ?? 5);
  const port = Math.round(positive('port', values.port, 5616));
  const minGoodput = positive('min-goodput', values['min-goodput'], 0.8);
  const maxP99 = positive('max-p99', values['max-p99'], 10_000);
  const maxRss = positive('max-rss', values['max-rss'], 400);
  const maxConnections = Math.round(positive('max-connections', values['max-connections'], 1000));
  const timeout = positive('timeout', values.timeout, 30);
  const paths = readUrlFile(values['url-file']!);
  // every level comes from one address and stands for that many clients: the per-address cap (500 by
  // default) would refuse what this scenario means to measure, the process's cap and its shedding
  process.env.HIERO_MIRROR_REST_SERVER_MAXCONNECTIONSPERCLIENT ??= '0';
  if (!buildService()) fail('npm run build failed');

  const problems: string[] = [];
  for (const model of models) {
    const run = await runModel(model, levels, paths, { port, duration, warmup, timeout });
    const peak = run.levels[0]!.result.admitted.length / duration;
    process.stdout.write(
      `\nclients: ${model} (a 503 is ${model === 'at-once' ? 'retried at once' : 'retried after its Retry-After'}); peak: ${levels[0]} connections\n` +
        'connections  answers/s  admitted/s  of peak  shed %  admitted p50/p99/max ms  shed p99 ms  other 5xx  errors  mid-answer  timeouts  RSS MB\n',
    );
    for (const { connections, result: r, rssMaxMb, cpu } of run.levels) {
      const admitted = Float64Array.from(r.admitted).sort();
      const shed = Float64Array.from(r.shed).sort();
      const other5xx = [...r.statuses].filter(([s]) => s >= 500 && s !== 503).reduce((n, [, c]) => n + c, 0);
      const answers = admitted.length + shed.length;
      const goodput = admitted.length / duration;
      const ratio = goodput / peak;
      const p99 = percentile(admitted, 99);
      const errors = count(r.errors);
      process.stdout.write(
        `${String(connections).padStart(11)} ${String(Math.round(answers / duration)).padStart(10)} ${String(Math.round(goodput)).padStart(11)} ` +
          `${`${(100 * ratio).toFixed(0)} %`.padStart(8)} ${((100 * shed.length) / Math.max(1, answers)).toFixed(1).padStart(7)} ` +
          `${`${percentile(admitted, 50).toFixed(0)}/${p99.toFixed(0)}/${(admitted.at(-1) ?? NaN).toFixed(0)}`.padStart(24)} ` +
          `${percentile(shed, 99).toFixed(0).padStart(12)} ${String(other5xx).padStart(10)} ${String(errors).padStart(7)} ` +
          `${String(r.midAnswer).padStart(11)} ${String(r.timeouts).padStart(9)} ${rssMaxMb.toFixed(0).padStart(7)}\n`,
      );
      process.stdout.write(
        `             statuses: ${[...r.statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}: ${c}`).join(', ')}; connections opened: ${r.connects}` +
          `${errors ? `; errors: ${[...r.errors].map(([k, v]) => `${k} ${v}`).join(', ')}` : ''}\n` +
          `             CPU (% of a core): server ${cpu.server.toFixed(0)}, PostgreSQL ${cpu.postgres.toFixed(0)}, this load generator ${cpu.client.toFixed(0)} ` +
          `(its event-loop delay p99 ${cpu.clientDelayP99Ms.toFixed(0)} ms: latency it adds to what it measures)\n`,
      );
      const where = `${model}, ${connections} connections`;
      if (other5xx > 0) problems.push(`${where}: ${other5xx} answers 5xx other than 503`);
      if (ratio < minGoodput) problems.push(`${where}: goodput ${Math.round(goodput)}/s is ${(100 * ratio).toFixed(0)} % of the peak's ${Math.round(peak)}/s (bound ${100 * minGoodput} %)`);
      if (!(p99 <= maxP99)) problems.push(`${where}: admitted p99 ${p99.toFixed(0)} ms (bound ${maxP99})`);
      if (rssMaxMb > maxRss) problems.push(`${where}: RSS ${rssMaxMb.toFixed(0)} MB (bound ${maxRss})`);
      if (connections <= maxConnections && errors + r.midAnswer + r.timeouts > 0) problems.push(`${where}: ${errors} connection errors, ${r.midAnswer} in the middle of an answer, ${r.timeouts} timeouts`);
      if (connections > maxConnections && r.midAnswer + r.timeouts > 0) problems.push(`${where}: ${r.midAnswer} connection errors in the middle of an answer, ${r.timeouts} timeouts`);
    }
    const { probe, alive, recovered } = run;
    if (probe.shed !== probe.withRetryAfter || probe.shed !== probe.mirrorBody) problems.push(`${model}: probed 503s: ${JSON.stringify(probe)}`);
    if (!alive || !recovered) problems.push(`${model}: after the load: liveness ${alive ? 'answers' : 'does not answer'}, ${recovered ? '' : 'no '}usual answer within 5 s`);
    process.stdout.write(
      `probe: ${probe.shed} 503s seen, ${probe.withRetryAfter} with Retry-After, ${probe.mirrorBody} with the mirror body; ` +
        `server log lines about shedding: ${run.shedLogLines}; after the load: liveness ${alive ? '200' : 'failed'}, usual answer ${recovered ? 'within 5 s' : 'not within 5 s'}; server ${run.stopped}\n`,
    );
  }
  process.stdout.write(`${problems.length ? `FAIL: ${problems.join('; ')}` : 'PASS'}\n`);
  process.exitCode = problems.length ? 1 : 0;
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
