/**
 * Soak test: steady load for minutes, watching for errors and memory growth (issue 16).
 *
 *   npm run bench -- soak --minutes 30 --connections 16 [--url-file FILE] [--start "CMD" | --pid N --base URL]
 *
 * Drives the server with autocannon over a URL list in windows of --window seconds (each
 * connection walks the list round-robin from its own offset), samples the RSS of the server's
 * process tree every --sample seconds, and prints one line per window: requests/s, latency p50/p99,
 * 5xx, connection errors and timeouts, RSS. It ends with PASS or FAIL (exit code 0 or 1):
 *
 * - errors: 5xx + connection errors + timeouts must not exceed --max-errors (default 0);
 * - memory: the median RSS of the last fifth of the run may exceed the median of the second fifth
 *   (the first is warm-up: JIT, caches, pools filling) by at most --max-rss-growth MB (default 64).
 *
 * Without --start or --pid it builds dist/cli.js and starts `serve --memory` on a free loopback port
 * (the demo network that bench/urls-demo.txt is written for); with DATABASE_URL set, that database
 * is served instead (give a URL list that fits it).
 */
import { writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { type Fail, freePort, numberOptions } from '../lib/cli.ts';
import { sampleTree } from '../lib/proc.ts';
import { type StartedServer, buildService, localService, startLocalService } from '../lib/server.ts';
import { readUrlFile } from '../lib/urls.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, PORT, URL_FILE, DEMO_URL_FILE, withDefault } from '../lib/options.ts';

const USAGE = `  --minutes N          length of the run                                               (default 10)
  --connections C      concurrent connections                                          (default 16)
  --url-file FILE      request paths, one per line                       (default bench/urls-demo.txt)
  --start "CMD"        start the server with sh -c CMD; SIGTERM it at the end
  --pid N --base URL   sample and drive a server that is already running instead
  --port P             loopback port for the server it starts                    (default: a free one)
  --window S           seconds per reported window                                     (default 60)
  --sample S           RSS sampling interval                                            (default 5)
  --max-errors N       5xx + connection errors + timeouts allowed                       (default 0)
  --max-rss-growth MB  RSS growth allowed, second fifth to last fifth of the run       (default 64)
  --timeout S          per-request timeout, counted as an error                        (default 10)
  --json FILE          also write the windows and the RSS series as JSON`;

interface Window {
  minute: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  status5xx: number;
  errors: number;
  timeouts: number;
  rssMb: number;
}

interface RssSample {
  /** seconds since the start */
  at: number;
  rssMb: number;
}

function runWindow(base: string, paths: string[], connections: number, seconds: number, timeout: number): Promise<autocannon.Result> {
  let clientNo = 0;
  const rotated = (offset: number): autocannon.Request[] =>
    paths.map((_, k) => ({ method: 'GET', path: paths[(k + offset) % paths.length] }));
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        pipelining: 1,
        timeout,
        requests: rotated(0),
        setupClient: (client) => client.setRequests(rotated(Math.floor((clientNo++ * paths.length) / connections))),
      },
      (err: Error | null, result: autocannon.Result) => (err ? reject(err) : resolve(result)),
    );
  });
}

const median = (values: number[]): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const OPTIONS = {
  minutes: { type: 'string' },
  ...CONNECTIONS,
  ...withDefault(URL_FILE, DEMO_URL_FILE),
  start: { type: 'string' },
  pid: { type: 'string' },
  base: { type: 'string' },
  ...PORT,
  window: { type: 'string' },
  sample: { type: 'string' },
  'max-errors': { type: 'string' },
  'max-rss-growth': { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'string' },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const { atLeast } = numberOptions(fail);
  const minutes = atLeast('minutes', values.minutes, 10, 0.1);
  const connections = atLeast('connections', values.connections, 16, 1);
  const windowSeconds = atLeast('window', values.window, 60, 1);
  const sampleSeconds = atLeast('sample', values.sample, 5, 0.1);
  const maxErrors = atLeast('max-errors', values['max-errors'], 0);
  const maxGrowthMb = atLeast('max-rss-growth', values['max-rss-growth'], 64);
  const timeout = atLeast('timeout', values.timeout, 10, 1);
  const paths = readUrlFile(values['url-file']!);
  if ((values.pid === undefined) !== (values.base === undefined)) fail('--pid and --base go together');

  let server: StartedServer | undefined;
  let pid: number;
  let base: string;
  if (values.pid !== undefined) {
    pid = atLeast('pid', values.pid, 0, 1);
    base = values.base!;
  } else {
    const port = values.port !== undefined ? atLeast('port', values.port, 0, 1) : await freePort();
    const service = localService('soak', port, process.env.DATABASE_URL ? '' : ' --memory');
    base = service.base;
    let command = values.start;
    if (command === undefined) {
      if (!buildService()) fail('npm run build failed');
      command = service.command;
    }
    process.stderr.write(`starting: ${command} (log: ${service.logFile})\n`);
    server = await startLocalService(service, 180_000, command);
    pid = server.pid;
  }

  const started = performance.now();
  const rss: RssSample[] = [];
  const sample = () => {
    const tree = sampleTree(pid);
    if (tree) rss.push({ at: (performance.now() - started) / 1000, rssMb: tree.rssKb / 1024 });
  };
  sample();
  const sampler = setInterval(sample, sampleSeconds * 1000);

  const windows: Window[] = [];
  const total = minutes * 60;
  process.stdout.write(`soak: ${minutes} min, ${connections} connections, ${paths.length} URLs, ${base}\n`);
  process.stdout.write('minute    req/s    p50 ms   p99 ms   max ms    5xx   errors  timeouts   RSS MB\n');
  try {
    for (let done = 0; done < total; done += windowSeconds) {
      const seconds = Math.min(windowSeconds, total - done);
      const result = await runWindow(base, paths, connections, seconds, timeout);
      sample();
      const w: Window = {
        minute: Math.round(((done + seconds) / 60) * 10) / 10,
        seconds,
        requests: result.requests.total,
        rps: Math.round(result.requests.average),
        p50: result.latency.p50,
        p99: result.latency.p99,
        max: result.latency.max,
        status5xx: result['5xx'],
        errors: result.errors,
        timeouts: result.timeouts,
        rssMb: Math.round(rss.at(-1)?.rssMb ?? NaN),
      };
      windows.push(w);
      process.stdout.write(
        `${String(w.minute).padStart(6)}  ${String(w.rps).padStart(7)}  ${String(w.p50).padStart(8)} ${String(w.p99).padStart(8)} ${String(w.max).padStart(8)} ${String(w.status5xx).padStart(6)} ${String(w.errors).padStart(8)} ${String(w.timeouts).padStart(9)} ${String(w.rssMb).padStart(8)}\n`,
      );
    }
  } finally {
    clearInterval(sampler);
    if (server) process.stderr.write(`server: ${await server.stop()}\n`);
  }

  const requests = windows.reduce((n, w) => n + w.requests, 0);
  const errors = windows.reduce((n, w) => n + w.status5xx + w.errors + w.timeouts, 0);
  const fifth = (k: number) => rss.filter((s) => s.at >= (total * k) / 5 && s.at < (total * (k + 1)) / 5 + 1e-9).map((s) => s.rssMb);
  const growth = median(fifth(4)) - median(fifth(1));
  const errorsOk = errors <= maxErrors;
  const rssOk = !(growth > maxGrowthMb);
  process.stdout.write(
    `\n${requests} requests, ${Math.round(requests / total)} req/s on average; 5xx + errors + timeouts: ${errors} (allowed ${maxErrors})\n` +
      `RSS: ${Math.round(rss[0]?.rssMb ?? NaN)} MB at the start, median ${Math.round(median(fifth(1)))} MB in the second fifth, ` +
      `${Math.round(median(fifth(4)))} MB in the last, max ${Math.round(Math.max(...rss.map((s) => s.rssMb)))} MB; ` +
      `growth ${Number.isNaN(growth) ? 'not measured (run longer than --sample x 5)' : `${growth.toFixed(1)} MB`} (allowed ${maxGrowthMb})\n` +
      `${errorsOk && rssOk ? 'PASS' : `FAIL:${errorsOk ? '' : ' errors'}${rssOk ? '' : ' memory growth'}`}\n`,
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ minutes, connections, windows, rss, errors, growthMb: growth }, null, 2));
  process.exitCode = errorsOk && rssOk ? 0 : 1;
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
