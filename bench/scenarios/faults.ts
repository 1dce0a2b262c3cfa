/**
 * Fault injection between the service and PostgreSQL under steady load (issue 16).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<scratch> npm run bench -- faults --seconds 60 \
 *     [--connections 8] [--url-file bench/urls-demo.txt] [--statement-timeout 20000] [--plan PLAN]
 *
 * Starts a TCP proxy in front of DATABASE_URL (bench/lib/tcpProxy.ts) and the service on the proxy,
 * keeps --connections clients sending the URL list, and at the seconds of --plan injects:
 *
 *   terminate  pg_terminate_backend() of the service's sessions (only those through this proxy)
 *   cut        the network stops forwarding, silently (packets dropped, nothing closed)
 *   heal       it forwards again
 *   reset      every connection through the proxy is destroyed (a refused network)
 *   restart    PostgreSQL itself stopped (pg_ctl stop -m fast), down for --restart-down seconds, then
 *              started again (pg_ctl start -w): only with --pg-data-dir, the data directory of a
 *              private cluster that DATABASE_URL names (never the machine's shared PostgreSQL)
 *
 * It prints the answers per second (2xx, 4xx, 503, other 5xx, no answer, p99 and max latency)
 * with the events, then checks: every request got an HTTP answer; no answer took longer than the
 * statement (or connection) timeout + 1 s; every answer other than 503 has the status and the body
 * (a hash) the URL had before the faults (no wrong 200); after each fault ends (terminate, reset:
 * at once; cut: at its heal; restart: when PostgreSQL accepts connections again) a second without
 * 503 came within --recovery seconds; no 503 answered outside a fault (from its start to its end + --recovery); the server
 * log has no stack and no line over 2 KB.
 * PASS or FAIL (exit code 0 or 1). The default plan, for --seconds S: terminate at S/6, cut at
 * S/3, heal at S/2 + 1, reset at 2S/3, terminate at 5S/6.
 *
 * The database must hold data the URL list fits (bench/urls-demo.txt: `npm run seed -- --scale 1
 * --database-url <url>`); the service only reads it. Use a scratch database.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type Fail, freePort, numberOptions } from '../lib/cli.ts';
import { type StartedServer, buildService, localService, startLocalService } from '../lib/server.ts';
import { TcpProxy } from '../lib/tcpProxy.ts';
import { readUrlFile } from '../lib/urls.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, PORT, SECONDS, URL_FILE, DEMO_URL_FILE, withDefault } from '../lib/options.ts';

const USAGE = `  --seconds S              length of the run                                            (default 60)
  --connections C          concurrent clients                                            (default 8)
  --url-file FILE          request paths                                (default bench/urls-demo.txt)
  --statement-timeout MS   the service's db.pool.statementTimeout                    (default 20000)
  --connection-timeout MS  the service's db.pool.connectionTimeout     (default: the statement timeout)
  --plan PLAN              events as second:event, comma separated, e.g. "10:cut,20:heal,30:terminate"
                           (events: terminate, cut, heal, reset, restart)
  --pg-data-dir DIR        data directory of the private cluster DATABASE_URL names: allows restart
  --restart-down S         seconds PostgreSQL stays down in a restart                       (default 3)
  --recovery S             seconds after a fault ends within which a second without 503 must come (default 5)
  --port P                 loopback port of the service                           (default: a free one)`;

type Event = 'terminate' | 'cut' | 'heal' | 'reset' | 'restart';
const EVENTS: readonly Event[] = ['terminate', 'cut', 'heal', 'reset', 'restart'];
const run = promisify(execFile);

/** Runs a PostgreSQL program as the postgres OS user (pg_ctl refuses to run as root). */
async function asPostgres(program: string, args: string[]): Promise<void> {
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  await run(file, argv, { cwd: '/tmp' });
}

/** pg_ctl of the newest PostgreSQL installed (Debian layout), or the one on PATH. */
function pgCtl(): string {
  const found = spawnSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -1'], { encoding: 'utf8' }).stdout.trim();
  return found || 'pg_ctl';
}

interface Second {
  ok: number;
  client: number;
  unavailable: number;
  /** 503s answered in this second (the other counts are by the second the request started) */
  unavailableAnswered: number;
  otherServer: number;
  unanswered: number;
  latencies: number[];
  events: string[];
}

function parsePlan(text: string, seconds: number, fail: Fail): Array<{ at: number; event: Event }> {
  return text.split(',').map((item) => {
    const [at, event] = item.trim().split(':');
    if (!EVENTS.includes(event as Event) || !(Number(at) >= 0 && Number(at) < seconds)) {
      fail(`--plan: "${item}" is not second:event with an event of ${EVENTS.join(', ')} within the run`);
    }
    return { at: Number(at), event: event as Event };
  });
}

/**
 * The p-quantile (p from 0 to 1) of an ascending array, 0 when empty. Not stats.ts's nearest-rank
 * percentile: that one takes 99 for p99, picks one rank lower when n * p is a whole number and is NaN
 * for an empty second, which would change this report's table.
 */
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : 0);

const OPTIONS = {
  ...SECONDS,
  ...CONNECTIONS,
  ...withDefault(URL_FILE, DEMO_URL_FILE),
  'statement-timeout': { type: 'string' },
  'connection-timeout': { type: 'string' },
  plan: { type: 'string' },
  'pg-data-dir': { type: 'string' },
  'restart-down': { type: 'string' },
  recovery: { type: 'string' },
  ...PORT,
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const { positive } = numberOptions(fail);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) fail('DATABASE_URL must name the (scratch) database to serve, over TCP');
  const seconds = Math.round(positive('seconds', values.seconds, 60));
  const connections = Math.round(positive('connections', values.connections, 8));
  const statementTimeout = Math.round(positive('statement-timeout', values['statement-timeout'], 20_000));
  const connectionTimeout = Math.round(positive('connection-timeout', values['connection-timeout'], statementTimeout));
  const plan = values.plan
    ? parsePlan(values.plan, seconds, fail)
    : [
        { at: Math.round(seconds / 6), event: 'terminate' as const },
        { at: Math.round(seconds / 3), event: 'cut' as const },
        { at: Math.round(seconds / 2) + 1, event: 'heal' as const },
        { at: Math.round((2 * seconds) / 3), event: 'reset' as const },
        { at: Math.round((5 * seconds) / 6), event: 'terminate' as const },
      ];
  const paths = readUrlFile(values['url-file']!);
  const dataDir = values['pg-data-dir'];
  if (plan.some((p) => p.event === 'restart') && !dataDir) fail('a restart needs --pg-data-dir (a private cluster, never a shared one)');
  const restartDown = positive('restart-down', values['restart-down'], 3);
  const recovery = positive('recovery', values.recovery, 5);

  const proxy = TcpProxy.to(databaseUrl);
  const proxyPort = await proxy.listen();
  /** One connection per use: a restart ends every session. */
  const adminQuery = async (text: string, values: unknown[]) => {
    const admin = new pg.Client({ connectionString: databaseUrl });
    admin.on('error', () => {});
    await admin.connect();
    try {
      return await admin.query(text, values);
    } finally {
      await admin.end();
    }
  };
  if (!buildService()) fail('npm run build failed');
  const port = values.port ? positive('port', values.port, 0) : await freePort();
  const service = localService('faults', port);
  const { base, logFile } = service;
  Object.assign(process.env, {
    DATABASE_URL: proxy.urlThrough(databaseUrl, proxyPort),
    HIERO_MIRROR_REST_DB_POOL_STATEMENTTIMEOUT: String(statementTimeout),
    HIERO_MIRROR_REST_DB_POOL_CONNECTIONTIMEOUT: String(connectionTimeout),
  });
  let server: StartedServer | undefined;
  const timeline: Second[] = Array.from({ length: seconds + 1 }, () => ({
    ok: 0, client: 0, unavailable: 0, unavailableAnswered: 0, otherServer: 0, unanswered: 0, latencies: [], events: [],
  }));
  /** Per path: the status and body hash before any fault; and the answers that differed later. */
  const expected = new Map<string, string>();
  const wrong: string[] = [];
  const fingerprint = (status: number, body: ArrayBuffer) => `${status} ${createHash('sha1').update(Buffer.from(body)).digest('hex')}`;
  /** Seconds (of the run) at which each fault ended: [start, end] per fault other than heal. */
  const faults: Array<{ event: Event; start: number; end: number | undefined }> = [];
  try {
    server = await startLocalService(service);
    process.stdout.write(`faults: ${seconds} s, ${connections} clients, statement timeout ${statementTimeout} ms, connection timeout ${connectionTimeout} ms\n`);
    process.stdout.write(`plan: ${plan.map((p) => `${p.at}:${p.event}`).join(', ')}\n`);
    for (const path of paths) {
      const res = await fetch(`${base}${path}`);
      expected.set(path, fingerprint(res.status, await res.arrayBuffer()));
    }

    const started = performance.now();
    const secondOf = (t: number) => Math.min(seconds, Math.floor((t - started) / 1000));
    const end = started + seconds * 1000;
    const requestTimeout = Math.max(statementTimeout, connectionTimeout) * 2 + 10_000;
    let next = 0;
    const client = async (): Promise<void> => {
      while (performance.now() < end) {
        const path = paths[next++ % paths.length]!;
        const t0 = performance.now();
        const slot = timeline[secondOf(t0)]!;
        try {
          const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(requestTimeout) });
          const body = await res.arrayBuffer();
          slot.latencies.push(performance.now() - t0);
          if (res.status !== 503 && fingerprint(res.status, body) !== expected.get(path) && wrong.length < 1000) {
            wrong.push(`${secondOf(t0)} s: ${path} -> ${res.status} ${Buffer.from(body).toString().slice(0, 120)}`);
          }
          if (res.status < 400) slot.ok++;
          else if (res.status < 500) slot.client++;
          else if (res.status === 503) {
            slot.unavailable++;
            timeline[secondOf(performance.now())]!.unavailableAnswered++;
          }
          else slot.otherServer++;
        } catch {
          slot.unanswered++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const inject = async (event: Event): Promise<string> => {
      const now = secondOf(performance.now());
      if (event === 'heal') {
        const open = faults.findLast((f) => f.event === 'cut' && f.end === undefined);
        if (open) open.end = now;
      } else faults.push({ event, start: now, end: event === 'cut' || event === 'restart' ? undefined : now });
      switch (event) {
        case 'restart': {
          const t0 = performance.now();
          await asPostgres(pgCtl(), ['-D', dataDir!, '-m', 'fast', '-w', 'stop']);
          const stopped = performance.now();
          await new Promise((resolve) => setTimeout(resolve, restartDown * 1000));
          await asPostgres(pgCtl(), ['-D', dataDir!, '-l', join(dirname(dataDir!), 'restart.log'), '-w', 'start']);
          const fault = faults.findLast((f) => f.event === 'restart');
          if (fault) fault.end = secondOf(performance.now());
          return `restart (stopped in ${Math.round(stopped - t0)} ms, down ${restartDown} s, accepting again at ${((performance.now() - started) / 1000).toFixed(1)} s)`;
        }
        case 'terminate': {
          const { rows } = await adminQuery(
            `select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity where client_port = any($1::int[])`,
            [proxy.upstreamPorts()],
          );
          return `terminate (${rows[0].n} sessions)`;
        }
        case 'cut':
          proxy.cut();
          return `cut (${proxy.connections} connections)`;
        case 'heal':
          proxy.heal();
          return 'heal';
        case 'reset': {
          const n = proxy.connections;
          proxy.reset();
          return `reset (${n} connections)`;
        }
      }
    };
    const timers = plan.map(({ at, event }) =>
      setTimeout(() => {
        const slot = timeline[secondOf(performance.now())]!;
        void inject(event).then(
          (text) => slot.events.push(text),
          (err: Error) => slot.events.push(`${event} FAILED: ${err.message.split('\n')[0]}`),
        );
      }, at * 1000),
    );
    await Promise.all(Array.from({ length: connections }, client));
    for (const timer of timers) clearTimeout(timer);
    if (proxy.isCut) proxy.heal();
  } finally {
    if (server) process.stderr.write(`server: ${await server.stop()} (log: ${logFile})\n`);
    await proxy.close();
  }

  process.stdout.write('\n   s    2xx+3xx   4xx   503  5xx  none  p99 ms  max ms  event\n');
  for (const [s, slot] of timeline.entries()) {
    const sorted = [...slot.latencies].sort((a, b) => a - b);
    process.stdout.write(
      `${String(s).padStart(4)} ${String(slot.ok).padStart(9)} ${String(slot.client).padStart(5)} ${String(slot.unavailable).padStart(5)} ${String(slot.otherServer).padStart(4)} ${String(slot.unanswered).padStart(5)} ${String(Math.round(percentile(sorted, 0.99))).padStart(7)} ${String(Math.round(sorted.at(-1) ?? 0)).padStart(7)}  ${slot.events.join('; ')}\n`,
    );
  }

  const problems: string[] = [];
  const unanswered = timeline.reduce((n, s) => n + s.unanswered, 0);
  const otherServer = timeline.reduce((n, s) => n + s.otherServer, 0);
  if (unanswered > 0) problems.push(`${unanswered} requests got no HTTP answer`);
  if (otherServer > 0) problems.push(`${otherServer} answers were 5xx other than 503`);
  const bound = Math.max(statementTimeout, connectionTimeout) + 1000;
  const slowest = Math.max(0, ...timeline.flatMap((s) => s.latencies));
  if (slowest > bound) problems.push(`an answer took ${Math.round(slowest)} ms (bound: ${bound} ms)`);
  if (wrong.length > 0) problems.push(`${wrong.length} answers differ from the URL's answer before the faults (e.g. ${wrong.slice(0, 3).join('; ')})`);
  const recoveries: string[] = [];
  for (const fault of faults) {
    if (fault.end === undefined) {
      problems.push(`${fault.event} at ${fault.start} s never ended`);
      continue;
    }
    // the first second from the end of the fault on with answers and no 503
    const back = timeline.findIndex((s, i) => i >= fault.end! && s.unavailable === 0 && s.ok > 0);
    recoveries.push(`${fault.event} ${fault.start}-${fault.end} s: ${back < 0 ? 'not recovered' : `answers without 503 from second ${back} (${back - fault.end} s after its end)`}`);
    if ((back < 0 || back - fault.end! > recovery) && fault.end! + recovery < seconds) {
      problems.push(`no second without 503 within ${recovery} s after the end of ${fault.event} (${fault.start}-${fault.end} s)`);
    }
  }
  const outside = timeline
    .map((s, i) => (s.unavailableAnswered > 0 && !faults.some((f) => i >= f.start && i <= (f.end ?? seconds) + recovery) ? i : -1))
    .filter((i) => i >= 0);
  if (outside.length > 0) problems.push(`503 answered outside the faults and their recovery, in seconds ${outside.join(', ')}`);
  const log = readFileSync(logFile, 'utf8').split('\n');
  const long = log.filter((line) => line.length > 2048).length;
  const stacks = log.filter((line) => line.includes('"stack"')).length;
  if (long > 0) problems.push(`${long} server log lines over 2 KB`);
  if (stacks > 0) problems.push(`${stacks} server log lines with a stack`);
  const total = timeline.reduce((n, s) => n + s.ok + s.client + s.unavailable + s.otherServer + s.unanswered, 0);
  process.stdout.write(
    `\n${total} requests; 503: ${timeline.reduce((n, s) => n + s.unavailable, 0)}; no answer: ${unanswered}; slowest answer ${Math.round(slowest)} ms; ` +
      `server log: ${log.length - 1} lines, ${long} over 2 KB, ${stacks} with a stack; answers unlike before the faults: ${wrong.length}\n` +
      `${recoveries.map((r) => `  ${r}\n`).join('')}${problems.length ? `FAIL: ${problems.join('; ')}` : 'PASS'}\n`,
  );
  process.exitCode = problems.length ? 1 : 0;
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
