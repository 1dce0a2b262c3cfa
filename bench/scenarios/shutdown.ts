/**
 * Graceful shutdown under load (issue 16): SIGTERM while --connections clients keep sending.
 *
 *   DATABASE_URL=postgres://... npm run bench -- shutdown --connections 64 --url-file ../shared/bench/urls.txt
 *
 * Builds and starts the service (dist/cli.js serve, one process) on --port, loads it for --load
 * seconds with keep-alive clients walking the URL list, sends SIGTERM, and keeps the clients sending
 * until the process has exited. Each request is classed by when it started (client side) and how it
 * ended. PASS (exit code 0) when:
 *
 * - every request in flight at the signal was answered, with the status its URL had before (none
 *   cut, none reset); a request written just before the signal that the server read after it may
 *   get the shutdown 503 (it arrived during the drain), counted apart;
 * - every 503 is the shutdown answer: the mirror body, `Retry-After`, `Connection: close`;
 * - after the signal nothing failed but new connections being refused (the listener is closed);
 * - the process exited 0 within the grace, its last line says `stopped` with `cut: 0` and
 *   `databaseClosed: true`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { type Fail, MIRROR_503, numberOptions } from '../lib/cli.ts';
import { buildService, localService } from '../lib/server.ts';
import { readUrlFile } from '../lib/urls.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, PORT, URL_FILE, DEMO_URL_FILE, withDefault } from '../lib/options.ts';

const USAGE = `  --connections C   concurrent keep-alive clients                                       (default 64)
  --url-file FILE   request paths                                    (default bench/urls-demo.txt)
  --load S          seconds of load before SIGTERM                                      (default 10)
  --port P          loopback port of the service                                      (default 5613)
  --grace MS        the service's server.shutdownGrace        (default: its own, statement timeout + 5 s)`;

interface Outcome {
  t0: number;
  t1: number;
  path: string;
  status?: number;
  connection?: string;
  retryAfter?: string;
  body?: string;
  error?: string;
}

async function waitReady(base: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server ended before answering:\n${readFileSync(log, 'utf8').slice(-2000)}`);
    try {
      const res = await fetch(`${base}/health/readiness`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the server did not become ready within 120 s');
}

const OPTIONS = {
  ...CONNECTIONS,
  ...withDefault(URL_FILE, DEMO_URL_FILE),
  load: { type: 'string' },
  ...PORT,
  grace: { type: 'string' },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const { positive } = numberOptions(fail);
  if (!process.env.DATABASE_URL) fail('DATABASE_URL must name the database to serve');
  const connections = Math.round(positive('connections', values.connections, 64));
  const loadSeconds = positive('load', values.load, 10);
  const port = Math.round(positive('port', values.port, 5613));
  const paths = readUrlFile(values['url-file']!);
  const env = { ...process.env, ...(values.grace ? { HIERO_MIRROR_REST_SERVER_SHUTDOWNGRACE: values.grace } : {}) };

  if (!buildService()) fail('npm run build failed');
  // not startLocalService: this script sends SIGTERM to the node process and times its exit itself,
  // and waits for readiness 200 (database reachable), not just any liveness answer below 500
  const { base, logFile } = localService('shutdown', port);
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--host', '127.0.0.1', '--port', String(port)], { env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  await waitReady(base, child, logFile);

  // the status each URL answers before the shutdown
  const expected = new Map<string, number>();
  for (const path of paths) {
    const res = await fetch(`${base}${path}`);
    await res.arrayBuffer();
    expected.set(path, res.status);
  }

  const outcomes: Outcome[] = [];
  let running = true;
  let next = 0;
  const client = async (): Promise<void> => {
    while (running) {
      const path = paths[next++ % paths.length]!;
      const o: Outcome = { t0: performance.now(), t1: 0, path };
      try {
        const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(60_000) });
        o.body = await res.text();
        o.status = res.status;
        o.connection = res.headers.get('connection') ?? undefined;
        o.retryAfter = res.headers.get('retry-after') ?? undefined;
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        o.error = cause?.code ?? cause?.message ?? (err as Error).message;
      }
      o.t1 = performance.now();
      outcomes.push(o);
      if (o.error) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const clients = Promise.all(Array.from({ length: connections }, client));
  await new Promise((resolve) => setTimeout(resolve, loadSeconds * 1000));
  const signalAt = performance.now();
  child.kill('SIGTERM');
  const exit = await exited;
  running = false;
  await clients;

  const log = readFileSync(logFile, 'utf8').trim().split('\n');
  const lines = log.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
  const begun = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('shutting down'));
  const stopped = lines.find((l) => l.msg === 'stopped');
  const graceMs = Number(begun?.graceMs ?? NaN);

  const before = outcomes.filter((o) => o.t1 <= signalAt);
  const inFlight = outcomes.filter((o) => o.t0 < signalAt && o.t1 > signalAt);
  const after = outcomes.filter((o) => o.t0 >= signalAt);
  const isShutdown503 = (o: Outcome) => o.status === 503 && o.connection === 'close' && o.retryAfter !== undefined && o.body === MIRROR_503;
  const finished = inFlight.filter((o) => o.status !== undefined && o.status !== 503 && o.status === expected.get(o.path));
  const inFlight503 = inFlight.filter(isShutdown503);
  const afterNormal = after.filter((o) => o.status !== undefined && o.status !== 503 && o.status === expected.get(o.path));
  const after503 = after.filter(isShutdown503);
  const refused = after.filter((o) => o.error === 'ECONNREFUSED');
  const problems: string[] = [];
  const odd = [...before, ...inFlight, ...after].filter(
    (o) => !(o.status !== undefined && (o.status === expected.get(o.path) || isShutdown503(o))) && !(o.t0 >= signalAt && o.error === 'ECONNREFUSED'),
  );
  if (odd.length) problems.push(`${odd.length} requests failed or answered unlike before (e.g. ${odd.slice(0, 3).map((o) => `${o.path}: ${o.error ?? `${o.status} ${o.connection} ${o.body?.slice(0, 80)}`}`).join('; ')})`);
  const exitMs = exit.at - signalAt;
  if (exit.code !== 0) problems.push(`exit ${exit.code ?? exit.signal}`);
  if (!(exitMs <= graceMs)) problems.push(`exited ${Math.round(exitMs)} ms after the signal, grace ${graceMs} ms`);
  if (!stopped || stopped.cut !== 0 || stopped.databaseClosed !== true) problems.push(`last line: ${JSON.stringify(stopped)}`);

  const sent = outcomes.length;
  process.stdout.write(
    `shutdown: ${connections} clients, ${loadSeconds} s of load, ${sent} requests; SIGTERM at ${(signalAt / 1000).toFixed(1)} s\n` +
      `before the signal: ${before.length} answered\n` +
      `in flight at the signal: ${inFlight.length}: ${finished.length} finished with their usual status; ` +
      `${inFlight503.length} read by the server after it: shutdown 503\n` +
      `sent after the signal: ${after.length}: ${after503.length} shutdown 503 (Connection: close, Retry-After, mirror body), ` +
      `${afterNormal.length} answered as usual (before the process saw the signal), ${refused.length} connections refused\n` +
      `failed or unexpected: ${odd.length}\n` +
      `exit code ${exit.code ?? exit.signal} ${Math.round(exitMs)} ms after the signal (grace ${graceMs} ms); ` +
      `server: ${JSON.stringify(stopped ? { inFlight: stopped.inFlight, refused: stopped.refused, cut: stopped.cut, ms: stopped.ms, databaseClosed: stopped.databaseClosed } : null)}\n` +
      `${problems.length ? `FAIL: ${problems.join('; ')}` : 'PASS'}\n`,
  );
  process.exitCode = problems.length ? 1 : 0;
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
