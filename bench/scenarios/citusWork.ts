/**
 * Database work per answered request on a Citus cluster (issue 45, item 2), this service beside the
 * reference: on Citus every statement costs a distributed plan on the coordinator and one task per
 * shard it reaches on the workers, so the statements a request sends and the shards they reach decide
 * what a request costs the cluster, whatever the server's own speed.
 *
 *   npm run bench -- citus-work --url-file ../shared/bench/urls.txt [--rounds 5] [--connections 1] [--json FILE]
 *
 * For each route of the URL list (bench/lib/urls.ts classify) and each server in turn (this service,
 * the reference, this service, the reference; --no-alternate: one each), with nothing else sent:
 * every URL of the route `--rounds` times over `--connections` connections (1: one request at a time),
 * the counters read before and after. Per answered request (any status; the 404s of the scale-1 mix
 * included):
 *
 * - statements: transactions committed and rolled back in the database on the coordinator
 *   (pg_stat_database xact_commit + xact_rollback); a statement outside an explicit transaction is one;
 * - shard tasks: the same summed over the workers' databases: each task Citus sends to a worker runs
 *   there as a statement of its own (inside an explicit transaction on the coordinator, the tasks a
 *   worker connection runs would share one: a lower bound then; neither server uses one per request);
 * - conns: sessions opened on the workers (pg_stat_database sessions): Citus's task connections beyond
 *   the one it keeps per worker, each of which also counts one transaction (its start-up) as a task;
 * - PG CPU: CPU time of every PostgreSQL process of the three clusters (--data-dirs): for each, the
 *   postmaster's utime+stime and cutime+cstime (children that have exited: backends and task
 *   connections that closed) plus utime+stime of every live child, from /proc, read right after the
 *   last answer;
 * - p50 of the answers' latencies; per server over the run also requests/s and p99.
 *
 * The counters lag: a backend adds its counts to pg_stat_database at the end of a transaction at most
 * once a second (PGSTAT_MIN_INTERVAL), and one that finished a transaction within a second of its last
 * report and then went idle reports it only when its idle timer fires, 10 s later
 * (PGSTAT_IDLE_INTERVAL, PostgreSQL 15): so each window's after-reading waits --settle 12 s after the
 * last answer (with 1-2 s, counts of one window landed in the next). The reading connections read no table (functions of
 * the database's oid): their own transactions are reported only when they disconnect, after the last
 * reading, and their CPU is left out.
 *
 * With no request at all the counters still move, in bursts: Citus's maintenance daemons check for
 * distributed deadlocks every 2 s over sessions to every node, transactions that read no table and are
 * therefore reported only when the session next reads one, at its two-phase-commit recovery once a
 * minute: 60-70 transactions land on each node within a few seconds, at about the same moment of
 * every minute (a window that caught one read 1.55 statements per request where its twin read 1.04).
 * So the script first watches the idle clusters for --idle 65 s (counters every 200 ms), notes when
 * they move, and starts each window only where it and its settling wait fit between those moments
 * (repeated every --period 60 s, widened by --guard 3 s; moments seen while waiting are added). A
 * window that could not be placed so, or overran its place, is marked in the output. The idle
 * clusters' CPU per second (checkpoints, the daemons) is subtracted for each window's length. Each
 * server is warmed up over the whole list first (caches, plans, pools); the two measurements of a
 * route on a server are compared, and differences printed.
 *
 * Only loopback servers and clusters of this machine (the CPU is read from /proc). Exit 0 once the
 * table is printed; 2 on a usage error, 1 when a measurement fails.
 */
import { realpathSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { resolve } from 'node:path';
import { type CacheCounters, cacheReport, scrapeCacheCounters } from '../lib/cacheMetrics.ts';
import {
  type Cell,
  CounterReader,
  type CpuReading,
  NO_WORK,
  type Snapshot,
  type TableRow,
  type Work,
  addWork,
  backgroundRate,
  overlapsBackground,
  quietStart,
  cellOf,
  perRequest,
  rawWork,
  readCpu,
  readPostmasterPid,
  renderTable,
  windowWork,
} from '../lib/citusWork.ts';
import { type Fail, loopbackUrl, numberOptions } from '../lib/cli.ts';
import { clockTicks } from '../lib/proc.ts';
import { percentile } from '../lib/stats.ts';
import { ENDPOINTS, type Endpoint, classify, readUrlFile } from '../lib/urls.ts';
import { requireServer } from '../lib/server.ts';
import { type OptionsConfig, type Values, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, URL_FILE } from '../lib/options.ts';

const USAGE = `Usage: npm run bench -- citus-work --url-file FILE [options]

  --url-file FILE        request paths, one per line ('#' comments and blank lines ignored)   (required)
  --service URL          this service, loopback only                      (default http://127.0.0.1:5557)
  --reference URL        the reference REST API, loopback only            (default http://127.0.0.1:5556)
  --coordinator URL      the coordinator's database      (default postgres://postgres@127.0.0.1:5711/mirror_node_v2)
  --workers URL,URL      the workers' databases          (default ports 5712,5713 of the same)
  --data-dirs D,D,...    data directories of every cluster, for the CPU (default /tmp/citus/coord,/tmp/citus/w1,/tmp/citus/w2)
  --rounds N             times the route's URLs are sent per measurement                     (default 5)
  --connections C        concurrent requests (1: one at a time, clean per-request counts)     (default 1)
  --no-alternate         one measurement per server and route (default: service, reference, service, reference)
  --settle S             wait after a window's last answer before reading the counters        (default 12)
  --idle S               idle seconds watched for the background's moments, before the windows (default 65)
  --period S             the background's period (Citus's two-phase-commit recovery interval)  (default 60)
  --guard S              margin around each background moment                                  (default 3)
  --timeout S            per-request timeout                                                   (default 30)
  --json FILE            also write every window's counters and the table as JSON`;


interface Options {
  urlFile: string;
  service: URL;
  reference: URL;
  coordinator: string;
  workers: string[];
  dataDirs: string[];
  rounds: number;
  connections: number;
  alternate: boolean;
  settleMs: number;
  idleMs: number;
  periodMs: number;
  guardMs: number;
  timeoutMs: number;
  json?: string;
}

/** A database of the cluster: on this machine, since its CPU is read from /proc. */
function databaseUrl(usage: Fail, name: string, value: string): string {
  loopbackUrl(usage, name, value, 'postgres', 'on this machine (its CPU is read from /proc)', 'postgresql');
  return value;
}

const OPTIONS = {
  ...URL_FILE,
  service: { type: 'string', default: 'http://127.0.0.1:5557' },
  reference: { type: 'string', default: 'http://127.0.0.1:5556' },
  coordinator: { type: 'string', default: 'postgres://postgres@127.0.0.1:5711/mirror_node_v2' },
  workers: { type: 'string', default: 'postgres://postgres@127.0.0.1:5712/mirror_node_v2,postgres://postgres@127.0.0.1:5713/mirror_node_v2' },
  'data-dirs': { type: 'string', default: '/tmp/citus/coord,/tmp/citus/w1,/tmp/citus/w2' },
  rounds: { type: 'string' },
  ...CONNECTIONS,
  'no-alternate': { type: 'boolean', default: false },
  settle: { type: 'string' },
  idle: { type: 'string' },
  period: { type: 'string' },
  guard: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'string' },
} satisfies OptionsConfig;

function parseOptions(values: Values<typeof OPTIONS>, usage: Fail): Options {
  const { integerAtLeast, atLeast } = numberOptions(usage);
  const httpBase = (name: string, value: string): URL => loopbackUrl(usage, name, value, 'http');
  if (!values['url-file']) usage('--url-file is required');
  const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const workers = list(values.workers!).map((w) => databaseUrl(usage, 'workers', w));
  if (workers.length === 0) usage('--workers needs at least one URL');
  const dataDirs = list(values['data-dirs']!);
  if (dataDirs.length === 0) usage('--data-dirs needs at least one directory');
  const settle = atLeast('settle', values.settle, 12, 0);
  return {
    urlFile: values['url-file'],
    service: httpBase('service', values.service!),
    reference: httpBase('reference', values.reference!),
    coordinator: databaseUrl(usage, 'coordinator', values.coordinator!),
    workers,
    dataDirs,
    rounds: integerAtLeast('rounds', values.rounds, 5),
    connections: integerAtLeast('connections', values.connections, 1),
    alternate: !values['no-alternate'],
    settleMs: settle * 1000,
    idleMs: atLeast('idle', values.idle, 65, 1) * 1000,
    periodMs: atLeast('period', values.period, 60, 1) * 1000,
    guardMs: atLeast('guard', values.guard, 3, 0) * 1000,
    timeoutMs: atLeast('timeout', values.timeout, 30, 1) * 1000,
    json: values.json,
  };
}

// --- requests ----------------------------------------------------------------------------------

interface Answers {
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  /** from the first request sent to the last answer */
  seconds: number;
}

async function timedGet(url: URL, timeoutMs: number): Promise<{ status: number; ms: number }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs);
  const started = performance.now();
  try {
    const response = await fetch(url, { signal: controller.signal });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** Sends `paths` in order over `connections` concurrent loops (each takes the next path when free). */
async function drive(base: URL, paths: readonly string[], connections: number, timeoutMs: number): Promise<Answers & { byPath: Map<string, number> }> {
  const answers = { latencies: [] as number[], statuses: new Map<number, number>(), errors: 0, seconds: 0, byPath: new Map<string, number>() };
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      try {
        const { status, ms } = await timedGet(new URL(path, base), timeoutMs);
        answers.latencies.push(ms);
        answers.statuses.set(status, (answers.statuses.get(status) ?? 0) + 1);
        answers.byPath.set(path, status);
      } catch {
        answers.errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(connections, paths.length) }, loop));
  answers.seconds = (performance.now() - started) / 1000;
  return answers;
}

const answered = (a: Answers) => a.latencies.length;
const statusText = (m: Map<number, number>) => [...m].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(', ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');

// --- the measurement ---------------------------------------------------------------------------

type Side = 'service' | 'reference';

interface Window {
  route: Endpoint;
  side: Side;
  measurement: number;
  startedAt: string;
  /** placed between the background's moments, and did not overrun its place */
  clean: boolean;
  answered: number;
  errors: number;
  statuses: Record<string, number>;
  requestSeconds: number;
  /** counters and CPU as read, nothing subtracted */
  raw: Work;
  /** less the background */
  work: Work;
}

interface Tally {
  work: Work;
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  seconds: number;
}

const newTally = (): Tally => ({ work: NO_WORK, latencies: [], statuses: new Map(), errors: 0, seconds: 0 });

function addTo(t: Tally, work: Work, a: Answers): void {
  t.work = addWork(t.work, work);
  t.latencies.push(...a.latencies);
  for (const [k, v] of a.statuses) t.statuses.set(k, (t.statuses.get(k) ?? 0) + v);
  t.errors += a.errors;
  t.seconds += a.seconds;
}

function cellOfTally(t: Tally): Cell {
  const sorted = Float64Array.from(t.latencies).sort();
  return cellOf(t.work, t.latencies.length, percentile(sorted, 50));
}

async function main(opts: Options): Promise<void> {
  await requireServer('service', opts.service);
  await requireServer('reference', opts.reference);
  const paths = readUrlFile(resolve(opts.urlFile));
  const byRoute = new Map<Endpoint, string[]>();
  for (const e of ENDPOINTS) {
    const group = paths.filter((p) => classify(p) === e);
    if (group.length) byRoute.set(e, group);
  }
  const bases: Record<Side, URL> = { service: opts.service, reference: opts.reference };
  const sides: Side[] = opts.alternate ? ['service', 'reference', 'service', 'reference'] : ['service', 'reference'];
  const tck = clockTicks();
  const out = (line: string) => process.stdout.write(`${line}\n`);

  const coordinator = await CounterReader.open(opts.coordinator);
  const workers = await Promise.all(opts.workers.map((w) => CounterReader.open(w)));
  const readers = [coordinator, ...workers];
  const own = new Set(readers.map((r) => r.pid));
  const postmasters = opts.dataDirs.map(readPostmasterPid);

  // the clusters read must be those whose CPU is counted
  const nodeDirs = await Promise.all(readers.map((r) => r.setting('data_directory')));
  const real = (d: string) => {
    try {
      return realpathSync(d);
    } catch {
      return d;
    }
  };
  const counted = new Set(opts.dataDirs.map(real));
  const unmatched = nodeDirs.filter((d) => !counted.has(real(d)));

  const readCounters = () => Promise.all(readers.map((r) => r.read()));
  const snapshot = async (): Promise<Snapshot> => {
    const [c, ...w] = await readCounters();
    const cpu = readCpu(postmasters, own);
    return { at: cpu.at, coordinator: c!, workers: w, ticks: cpu.ticks };
  };

  // the background's moments: when the counters move with nothing sent
  const events: { at: number; node: number; delta: number }[] = [];
  let lastSeen = await readCounters();
  const watch = async (untilMs: number) => {
    lastSeen = await readCounters();
    while (Date.now() < untilMs) {
      await sleep(Math.min(200, Math.max(0, untilMs - Date.now())));
      const now = await readCounters();
      now.forEach((n, node) => {
        if (n.xacts !== lastSeen[node]!.xacts) events.push({ at: Date.now(), node, delta: n.xacts - lastSeen[node]!.xacts });
      });
      lastSeen = now;
    }
  };
  /** Moments of the last three periods (the schedule drifts by a second or two a minute). */
  const moments = () => events.filter((e) => e.at >= Date.now() - 3 * opts.periodMs).map((e) => e.at);

  const windows = [...byRoute.keys()].length * sides.length;
  out(`machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, ${tck} clock ticks/s`);
  out(`mix: ${paths.length} URLs from ${opts.urlFile} (${[...byRoute].map(([e, g]) => `${e} ${g.length}`).join(', ')}), ${opts.rounds} rounds per measurement, ` +
    `${opts.connections} connection${opts.connections === 1 ? '' : 's'}; ${opts.alternate ? 'service, reference, service, reference' : 'service, then reference'} per route`);
  out(`this service ${opts.service.origin}, reference ${opts.reference.origin}`);
  out(`coordinator ${nodeDirs[0]}, workers ${nodeDirs.slice(1).join(', ')}; CPU of the postmasters ${postmasters.join(', ')} (${opts.dataDirs.join(', ')}) and their children, ` +
    `without this script's reading sessions (${[...own].join(', ')})`);
  if (unmatched.length) out(`WARNING: nodes whose cluster is not in --data-dirs (their CPU is not counted): ${unmatched.join(', ')}`);
  out(`about ${Math.ceil((opts.settleMs + opts.idleMs + windows * (opts.settleMs + 3000) * 1.6) / 60000)} minutes: ${opts.idleMs / 1000} s idle, then ${windows} windows, ` +
    `each followed by ${opts.settleMs / 1000} s for the counters to settle and placed between the background's moments`);

  const cacheBefore: CacheCounters | undefined = await scrapeCacheCounters(opts.service);
  out(`this service's response cache: ${cacheBefore ? 'ON (its /metrics has response_cache_ counters; hits are reported below)' : 'off (its /metrics has no response_cache_ counters)'}`);

  // warm-up: the whole list once on each server; the statuses and times each server gives
  const expected: Record<Side, Map<string, number>> = { service: new Map(), reference: new Map() };
  const warmSeconds: Record<Side, number> = { service: 0, reference: 0 };
  for (const side of ['service', 'reference'] as const) {
    const a = await drive(bases[side], paths, opts.connections, opts.timeoutMs);
    expected[side] = a.byPath;
    warmSeconds[side] = a.seconds;
    out(`warm-up ${side}: ${answered(a)} answers in ${f1(a.seconds)} s (${statusText(a.statuses)})${a.errors ? `, ${a.errors} ERRORS` : ''}`);
  }
  const differ = paths.filter((p) => expected.service.get(p) !== expected.reference.get(p));
  out(`statuses: ${differ.length ? `${differ.length} URLs answered differently: ${differ.map((p) => `${expected.service.get(p) ?? 'error'}/${expected.reference.get(p) ?? 'error'} ${p}`).join('; ')}` : 'every URL answered the same by both'}`);

  // the idle clusters: their moments, and their CPU per second
  await sleep(opts.settleMs);
  const idleStart = await snapshot();
  await watch(Date.now() + opts.idleMs);
  const idleEnd = await snapshot();
  const idle = rawWork(idleStart, idleEnd, tck);
  const background: Work = { ...NO_WORK, cpuSeconds: backgroundRate(idleStart, idleEnd, tck).cpuSeconds };
  const second = (at: number) => new Date(at).toISOString().slice(11, 19);
  out(`idle ${f1((idleEnd.at - idleStart.at) / 1000)} s: ${idle.statements} coordinator transactions, ${idle.tasks} worker transactions, ` +
    `${idle.coordinatorSessions}/${idle.workerSessions} sessions opened (coordinator/workers), ${f1(idle.cpuSeconds * 1000)} ms PG CPU ` +
    `(${f2(background.cpuSeconds * 1000)} ms/s, subtracted for each window's length)`);
  out(`  the counters moved at ${events.length ? [...new Set(events.map((e) => second(e.at)))].join(', ') : 'no moment'} (UTC); ` +
    `windows avoid these moments every ${opts.periodMs / 1000} s, ±${opts.guardMs / 1000} s`);

  const log: Window[] = [];
  const tallies = new Map<Endpoint, Record<Side, Tally>>();
  const totals: Record<Side, Tally> = { service: newTally(), reference: newTally() };
  const lastSeconds = new Map<string, number>();
  for (const [route, group] of byRoute) {
    const list = Array.from({ length: opts.rounds }, () => group).flat();
    const tally = { service: newTally(), reference: newTally() };
    tallies.set(route, tally);
    const seen: Record<Side, number> = { service: 0, reference: 0 };
    for (const side of sides) {
      // the window's length: its requests (as last measured, or from the warm-up), the settling wait
      const estimate = lastSeconds.get(`${route} ${side}`) ?? (warmSeconds[side] * group.length * opts.rounds) / paths.length;
      const lengthMs = estimate * 1500 + 1000 + 300 + opts.settleMs;
      let placed = true;
      for (;;) {
        const at = quietStart(Date.now(), lengthMs, moments(), opts.periodMs, opts.guardMs);
        if (at === undefined) {
          placed = false;
          break;
        }
        if (at <= Date.now() + 50) break;
        await watch(Math.min(at, Date.now() + 1000));
      }
      const start = await snapshot();
      const a = await drive(bases[side], list, opts.connections, opts.timeoutMs);
      await sleep(300); // task connections that closed after the last answer: their exit
      const cpuEnd: CpuReading = readCpu(postmasters, own);
      await sleep(opts.settleMs);
      const end = await snapshot();
      lastSeconds.set(`${route} ${side}`, a.seconds);
      const clean = placed && !overlapsBackground(start.at, end.at, moments(), opts.periodMs, opts.guardMs);
      const raw = windowWork(start, cpuEnd, end, tck);
      const work = windowWork(start, cpuEnd, end, tck, background);
      const measurement = ++seen[side];
      log.push({ route, side, measurement, startedAt: new Date(start.at).toISOString(), clean, answered: answered(a), errors: a.errors, statuses: Object.fromEntries(a.statuses), requestSeconds: a.seconds, raw, work });
      addTo(tally[side], work, a);
      addTo(totals[side], work, a);
      const per = perRequest(work, answered(a));
      out(`  ${second(start.at)} ${route.padEnd(8)} ${side.padEnd(9)} ${measurement}: ${answered(a)} answers in ${f2(a.seconds)} s (${statusText(a.statuses)})` +
        `${a.errors ? `, ${a.errors} ERRORS` : ''}; +${raw.statements} stmts, +${raw.tasks} tasks, +${raw.workerSessions} worker sessions, ` +
        `${f1(raw.cpuSeconds * 1000)} ms PG CPU; per request ${f2(per.statements)} / ${f2(per.tasks)} / ${f2(per.cpuSeconds * 1000)} ms` +
        `${clean ? '' : placed ? '  (OVERRAN its place: may hold a background moment)' : '  (NOT PLACED between background moments)'}`);
    }
  }

  // the two measurements of a route on a server send the same statements: say where they differ
  const notes: string[] = [];
  for (const [route] of byRoute) {
    for (const side of ['service', 'reference'] as const) {
      const ws = log.filter((w) => w.route === route && w.side === side).map((w) => perRequest(w.work, w.answered));
      if (ws.length < 2) continue;
      const spread = (f: (w: Work) => number) => Math.max(...ws.map(f)) - Math.min(...ws.map(f));
      if (spread((w) => w.statements) > 0.05 || spread((w) => w.tasks) > 0.1) {
        notes.push(`${route} ${side}: the measurements differ by ${f2(spread((w) => w.statements))} statements and ${f2(spread((w) => w.tasks))} tasks per request`);
      }
    }
  }

  const rows: TableRow[] = [...tallies].map(([route, t]) => ({ route, service: cellOfTally(t.service), reference: cellOfTally(t.reference) }));
  rows.push({ route: 'total', service: cellOfTally(totals.service), reference: cellOfTally(totals.reference) });
  out('');
  out(renderTable(rows));
  out('stmts: coordinator transactions; tasks: worker transactions; conns: worker sessions opened (each also one task); CPU: all PostgreSQL processes of the clusters; all per answered request');
  const summary: Record<Side, { answered: number; rps: number; p50: number; p99: number; statuses: Record<string, number>; errors: number; perRequest: Work }> = {} as never;
  for (const side of ['service', 'reference'] as const) {
    const t = totals[side];
    const sorted = Float64Array.from(t.latencies).sort();
    const per = perRequest(t.work, t.latencies.length);
    summary[side] = {
      answered: t.latencies.length,
      rps: t.latencies.length / t.seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      statuses: Object.fromEntries(t.statuses),
      errors: t.errors,
      perRequest: per,
    };
    out(`${side === 'service' ? 'this service' : 'reference   '}: ${t.latencies.length} answers in ${f1(t.seconds)} s of requests, ${f1(summary[side].rps)} req/s ` +
      `(${opts.connections} connection${opts.connections === 1 ? '' : 's'}), p50 ${f1(summary[side].p50)} ms, p99 ${f1(summary[side].p99)} ms; ${statusText(t.statuses)}` +
      `${t.errors ? `; ${t.errors} ERRORS` : ''}; coordinator sessions opened ${f2(per.coordinatorSessions)}/request`);
  }
  const unclean = log.filter((w) => !w.clean).length;
  out(`windows placed between the background's moments: ${log.length - unclean} of ${log.length}`);
  for (const note of notes) out(`NOTE ${note}`);
  const cacheAfter = cacheBefore && (await scrapeCacheCounters(opts.service));
  if (cacheBefore && cacheAfter) {
    const c = cacheReport(cacheBefore, cacheAfter);
    out(`this service's response cache over the run: hit ratio ${f1(c.hitRatio * 100)} % (local ${c.localHits}, Redis ${c.redisHits}, coalesced ${c.coalesced}): ` +
      'answers from the cache make no database work, so the figures above are not per computed answer');
  }

  await Promise.all(readers.map((r) => r.end()));
  if (opts.json) {
    const doc = {
      at: new Date().toISOString(),
      options: { ...opts, service: opts.service.origin, reference: opts.reference.origin },
      clockTicks: tck,
      postmasters,
      cache: cacheBefore ? 'on' : 'off',
      idle,
      background,
      backgroundMoments: events.map((e) => ({ at: new Date(e.at).toISOString(), node: e.node === 0 ? 'coordinator' : `worker ${e.node}`, delta: e.delta })),
      windows: log,
      rows,
      summary,
      notes,
    };
    writeFileSync(opts.json, `${JSON.stringify(doc, null, 2)}\n`);
    out(`wrote ${opts.json}`);
  }
}

export default defineScenario({
  usage: USAGE,
  options: OPTIONS,
  run: async ({ values, fail }) => {
    await main(parseOptions(values, fail));
    // the counter readers' and servers' sockets may linger: end here, as the report is complete
    process.exit(0);
  },
});
