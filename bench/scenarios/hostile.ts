/**
 * Hostile clients (issue 44, item 2): can streamed answers be turned against the service?
 *
 *   npm run bench -- hostile --url-file ../shared/bench/urls.txt --base http://127.0.0.1:5553 \
 *     [--pid N | --start "CMD"] [--ndjson 80] [--events 40] [--spread] [--rounds N] [--json out.json]
 *     [--idle N] [--slowloris N] [--slow-readers N --read-rate 1000 --read-rate 10] [--attacker-address 127.0.0.9]
 *
 * 1. The bench mix (--url-file, autocannon as the run scenario: bench/lib/mixLoad.ts) at --connections
 *    (16) for --duration seconds after --warmup: the mix alone.
 * 2. Then H hostile clients open in a child process (bench/lib/hostileWorker.ts, forked with tsx; it
 *    sends the parent its connections' changes by IPC), so that their sockets and the probing below
 *    do not share the event loop of the mix's load client (measured: the same attack from the bench's
 *    own process cost the mix 31 % of its throughput and 2.9x its p99, from another process 11-22 %
 *    and 1.05-1.25x). This process runs only the mix and the server's sampling. The clients
 *    (bench/lib/hostileClient.ts): --ndjson N asking for a whole logs listing as NDJSON (by default
 *    every contract's logs over the 7 days before the newest log: millions of lines) and --events M
 *    event-stream clients of the logs routes, half of them with a backlog (a Last-Event-ID or
 *    `timestamp=gte:` --backlog-hours before the newest log) and half live. Each sends its request on a raw socket, from 127.0.0.1 or, with --spread, from
 *    127.0.0.2..127.0.0.254 in turn, reads at most 1 KB once (the status line, mostly the headers:
 *    how the server answered it) and never reads again. After --settle seconds the mix runs again
 *    for --duration seconds: the mix under attack.
 *    One client's attacks (issue 58; bench/lib/attackClients.ts) run in the same child process, all
 *    from --attacker-address (127.0.0.9; the mix comes from 127.0.0.1): --idle N connections that
 *    send nothing and --slowloris N that send a request line and then a header line every
 *    --slowloris-every s, each reconnecting --reconnect-ms after the server closes it (as a real
 *    attacker would; at most --max-connects in all); --slow-readers N NDJSON readers per --read-rate
 *    (bytes/s) that read their listing at that rate. Readiness is probed every --readiness-ms (250) on
 *    a new connection from --probe-address (127.0.0.3) while the hostile clients are open, from a
 *    process of its own (the attackers' event loop, busy reconnecting, would add its delays to the times).
 * 3. The hostile clients stay open until --hold seconds after they opened, or until the server has
 *    closed every one; past --hold (at most --max-stall s more) while an open stream has gone 20 s
 *    to --max-stall s without progress, so that it is judged (a live stream's heartbeats, every 15 s,
 *    are progress). Then they close (the child process ends).
 * 4. With --rounds N, steps 1-3 N times (alone, under attack, alone, under attack...), each attack
 *    with fresh hostile clients: each round's ratios are printed, the verdict takes their medians.
 * 5. After the last round, the mix runs --after seconds more (the service's usual load once the
 *    attackers left) and the server's RSS is sampled at its end; then, idle for --after seconds, once
 *    more (the idle RSS). The server must then answer liveness and a mix URL as usual.
 *
 * How a hostile connection is followed without reading from it. Reading is what a stalled server
 * waits for, so the client side never reads after its first kilobyte; instead, every --probe-ms the
 * script reads the kernel's own table of TCP sockets (/proc/net/tcp and tcp6; both ends of a
 * loopback connection are in it) and, per connection:
 * - progress: the bytes that reached the client, those it read plus its receive queue (rx_queue of
 *   the client's end), growing. The server's writes progress exactly while the client's kernel
 *   accepts bytes; once its receive buffer is full the window is zero and nothing moves. The last
 *   progress is the first look at which the count had its final value (to within one probe);
 * - closed by the server: the server's end is no longer ESTABLISHED (close() moves it to FIN_WAIT1
 *   at once, even when its unsent bytes keep the FIN itself queued behind a zero window), or no
 *   process holds it any more (inode 0), or it is gone (a reset), or the client's end is in
 *   CLOSE_WAIT (the FIN came). Seen at the first look after it happened (to within one probe).
 * Answers that came whole (a refusal, 400, 429, 503 with a Content-Length) are not judged against
 * --max-stall: nothing was left to write; whether the server then closed them is reported.
 * Sound on Linux for a server on this host (loopback only); the alternative of resuming the socket
 * for a moment would itself be the progress that resets a stall timer.
 *
 * The client's receive buffer: Node cannot set SO_RCVBUF on a TCP socket. A socket that never reads
 * keeps the kernel's initial buffer (net.ipv4.tcp_rmem's default, printed; 128 KB usually), as
 * receive-buffer autotuning grows it only for an application that reads. So each client holds about
 * that much, and the rest of what the server writes waits in the server's kernel send queue (printed
 * as the server's queued bytes: kernel memory, not in the RSS) and then in the server process.
 *
 * Targets (issue 44), exit code 1 when one is missed: the mix's good answers per second (those with
 * their URL's pre-flight status) under attack at least --min-throughput (90 %) of alone, its p99 at
 * most --max-p99-ratio (1.5) times alone's (a timeout counts as an answer taking the timeout); the
 * server's RSS below --max-rss (400 MB) throughout; every hostile stream closed by the server within
 * --max-stall (60) s of its last progress (or still progressing); RSS under the mix once the hostile
 * clients are gone (the median of the samples of the last half of the --after s) at most
 * --max-rss-change (10 %) above RSS under the mix before the first ones came (the median of the first
 * mix alone, after the warm-up; less is fine: memory given back). Medians, because the heap swings by a
 * third under the mix from one collection to the next. Both under the mix: V8 gives memory back after the garbage collections
 * that load runs, which an idle process does not run, so the idle RSS is printed, not judged. The
 * server answers as usual afterwards.
 * With the attacks of issue 58 besides: /health/readiness answered 200 to every probe (its p99
 * printed), slow readers at or above --stall-floor (100 B/s, server.stallMinRate) not cut by the end
 * of the hold, those below it cut by then, and every reader answered 200. The idle and slowloris
 * places are reported (connections, how and when the server closed them, its answers), not judged:
 * the mix's ratio is what they must not move.
 * The server's /metrics lines for shedding, stalls and streams are printed where the build has them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EXPECTED_METRICS,
  HOSTILE_KINDS,
  HOSTILE_OPTIONS,
  HOSTILE_USAGE,
  type HostileOptions,
  awaitingJudgement,
  type KindSummary,
  type MixNumbers,
  type MixRound,
  type NewestLog,
  type Track,
  fateOf,
  hostileSpecs,
  hostileTargets,
  mixNumbers,
  parseHostileOptions,
  summarizeKind,
  verdict,
  watchedMetrics,
} from '../lib/hostile.ts';
import { type AttackReport, attackProblems, keptFrom } from '../lib/attacks.ts';
import { HostileProcess } from '../lib/hostileClient.ts';
import { type LoadResult, preflight, runLoad } from '../lib/mixLoad.ts';
import { ProcessSampler, type ProcessReport, processExists, sampleTree } from '../lib/proc.ts';
import { type StartedServer, startServer } from '../lib/server.ts';
import { listenerPid } from '../lib/tcpTable.ts';
import { percentile } from '../lib/stats.ts';
import { readUrlFile } from '../lib/urls.ts';
import { type ScenarioArgs, defineScenario } from '../lib/scenario.ts';


const f0 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(0) : '-');
const f1 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(1) : '-');
const signedPercent = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(1)} %` : '-');

function table(rows: string[][], leftColumns: number[] = [0]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const cell = (text: string, c: number) => (leftColumns.includes(c) ? text.padEnd(widths[c]!) : text.padStart(widths[c]!));
  return rows.map((r) => r.map(cell).join('  ').trimEnd()).join('\n');
}

/** The newest log (its timestamp and contract), the anchor of the default hostile URLs. */
async function newestLog(base: URL): Promise<NewestLog> {
  const response = await fetch(new URL('/api/v1/contracts/results/logs?limit=1', base), { signal: AbortSignal.timeout(30_000) });
  const body = (await response.json()) as { logs?: Array<{ timestamp?: string; contract_id?: string }> };
  const log = body.logs?.[0];
  if (response.status !== 200 || !log?.timestamp || !log.contract_id) {
    throw new Error(`no newest log from /api/v1/contracts/results/logs?limit=1 (HTTP ${response.status}): the database needs logs`);
  }
  return { timestamp: log.timestamp, contractId: log.contract_id };
}

/** The watched metric lines, or undefined when /metrics does not answer within 5 s. */
async function scrape(base: URL): Promise<Map<string, number> | undefined> {
  try {
    const response = await fetch(new URL('/metrics', base), { signal: AbortSignal.timeout(5000) });
    const text = await response.text();
    return response.ok ? watchedMetrics(text) : undefined;
  } catch {
    return undefined;
  }
}

async function answersAsUsual(base: URL, path: string, status: number | null): Promise<boolean> {
  const get = async (url: URL) => {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    return response.status;
  };
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    try {
      if ((await get(new URL('/health/liveness', base))) === 200 && (await get(new URL(path, base))) === (status ?? 200)) return true;
    } catch {
      /* tried again */
    }
    await sleep(200);
  }
  return false;
}

interface Phase {
  name: string;
  /** s since the sampler started */
  from: number;
  to: number;
}

/** One round: the mix alone, then under attack, and that attack's connections (judged at the end of its hold). */
interface Round {
  alone: LoadResult;
  attack: LoadResult;
  tracks: Track[];
  holdEnd: number;
  /** What the one client's attackers and the readiness probe saw (issue 58). */
  attacks?: AttackReport;
  /** CPU of the hostile clients' process from their opening to the end of the hold, % of a core. */
  attackerCpuPercent?: number;
}

function tcpRmemDefault(): string {
  try {
    const [, initial] = readFileSync('/proc/sys/net/ipv4/tcp_rmem', 'utf8').trim().split(/\s+/);
    return `${Math.round(Number(initial) / 1024)} KB`;
  } catch {
    return 'unknown';
  }
}

function printMix(rounds: MixRound[], after: MixNumbers, o: HostileOptions, v: ReturnType<typeof verdict>): string {
  const statuses = (m: MixNumbers) => Object.entries(m.statuses).map(([k, n]) => `${k}: ${n}`).join(', ');
  const row = (name: string, m: MixNumbers) => [name, f0(m.goodPerS), f0(m.answersPerS), f1(m.p50), f1(m.p99), f1(m.max), String(m.statuses['503'] ?? 0), String(m.timeouts), String(m.errors), statuses(m)];
  const n = (i: number) => (rounds.length > 1 ? ` ${i + 1}` : '');
  const rows = [['', 'good/s', 'answers/s', 'p50 ms', 'p99 ms', 'max ms', '503', 'timeouts', 'errors', 'statuses']];
  rounds.forEach((r, i) => rows.push(row(`alone${n(i)}`, r.alone), row(`under attack${n(i)}`, r.attack)));
  rows.push(row(`after (${o.after} s)`, after));
  const ratios = (throughput: number, p99: number) => `good answers ${f0(100 * throughput)} %, p99 ${p99.toFixed(2)}x`;
  const targets = `(targets: good answers >= ${f0(100 * o.minThroughput)} %, p99 <= ${o.maxP99Ratio}x)`;
  const out = [
    `\n== the mix: ${o.connections} connections, ${o.duration} s each${rounds.length > 1 ? `; ${rounds.length} rounds, each alone then under attack (fresh hostile clients)` : ''}`,
    table(rows, [0, 9]),
  ];
  if (rounds.length > 1) {
    v.ratios.forEach((r, i) => out.push(`round ${i + 1}: under attack / alone: ${ratios(r.throughput, r.p99)}`));
    out.push(`under attack / alone, median of ${rounds.length} rounds: ${ratios(v.throughputRatio, v.p99Ratio)} ${targets}`);
  } else {
    out.push(`under attack / alone: good answers ${f0(100 * v.throughputRatio)} % (target >= ${f0(100 * o.minThroughput)} %), p99 ${v.p99Ratio.toFixed(2)}x (target <= ${o.maxP99Ratio}x)`);
  }
  return out.join('\n');
}

function printHostile(kinds: KindSummary[], o: HostileOptions, specsText: string): string {
  const answers = (k: KindSummary) => Object.entries(k.answers).map(([s, n]) => `${s} x${n}`).join(', ');
  const rows = [['kind', 'clients', 'answers', 'Retry-After', 'status line p50/max ms', 'closed (max s after progress)', 'open (max s stalled)', 'whole answers (closed)', 'late', 'bytes received', 'server queued']];
  for (const k of kinds) {
    if (k.clients === 0) continue;
    rows.push([
      k.kind, String(k.clients), answers(k), String(k.retryAfter), `${f0(k.headMs.p50)}/${f0(k.headMs.max)}`,
      k.closed ? `${k.closed} (${f1(k.closedAfterMaxS)})` : '0', k.open ? `${k.open} (${f1(k.openStalledMaxS)})` : '0',
      `${k.answered} (${k.answeredClosed})`, String(k.late), `${(k.receivedBytes / 1e6).toFixed(1)} MB`, `${(k.serverQueuedBytes / 1e6).toFixed(1)} MB`,
    ]);
  }
  return [
    `\n== hostile clients (${specsText}${o.rounds > 1 ? `; in each of ${o.rounds} rounds, counted together` : ''}); a stream counts late when not closed within ${o.maxStall} s of its last progress`,
    table(rows, [0, 2]),
  ].join('\n');
}

function printAttacks(reports: Array<AttackReport | undefined>, o: HostileOptions): string {
  const out: string[] = [];
  const a = o.attacks;
  const n = (i: number) => (reports.length > 1 ? ` ${i + 1}` : '');
  const rec = (r: Record<string, number>) => Object.entries(r).map(([k, v]) => `${k} x${v}`).join(', ');
  reports.forEach((report, i) => {
    if (!report) return;
    if (report.held.length) {
      const rows = [['kind', 'places', 'connections', 'endings', 'answers', 'closed by the server after s, by answer: n p50/max', 'open at end (longest s)']];
      for (const h of report.held) {
        const closed = Object.entries(h.closedAfterSByAnswer).map(([k, d]) => `${k}: ${d.n} ${f1(d.p50)}/${f1(d.max)}`).join('; ');
        rows.push([h.kind, String(h.places), String(h.connections), rec(h.endings), rec(h.answers), closed || '-', `${h.openAtEnd} (${f1(h.openLongestS)})`]);
      }
      out.push(`\n== held connections${n(i)} from ${a.address ?? 'any address'} over ${report.seconds} s (reconnecting ${a.reconnectMs} ms after a close; slowloris: a header line every ${a.slowlorisEveryMs / 1000} s)`, table(rows, [0, 3, 4, 5]));
      const opened = report.held.reduce((sum, h) => sum + h.connections, 0);
      if (opened >= a.maxConnects) out.push(`note: --max-connects (${a.maxConnects}) was reached: the places stopped reconnecting before the end of the hold`);
    }
    if (report.readers.length) {
      const rows = [['B/s', 'readers', 'answers', 'reset', 'closed', 'cut after s p50/max', 'open at end', 'failed', 'read B/s p50', 'bytes read']];
      for (const r of report.readers) {
        rows.push([String(r.rate), String(r.readers), rec(r.answers), String(r.reset), String(r.closed), `${f1(r.cutAfterS.p50)}/${f1(r.cutAfterS.max)}`, String(r.open), String(r.failed), f0(r.readRateP50), String(r.bytes)]);
      }
      out.push(`\n== slow NDJSON readers${n(i)} from ${a.address ?? 'any address'} (${a.readerPath}); floor ${o.readerBounds.stallFloor} B/s: below it cut by the end of the hold; at or above ${keptFrom(o.readerBounds)} B/s (the default receive buffer read in 45 s) never cut`, table(rows, [2]));
    }
    const r = report.readiness;
    if (r) {
      out.push(
        `\n== readiness${n(i)}: ${r.probes} probes from ${a.probeAddress ?? 'any address'}, one every ${a.readinessMs} ms on a new connection: ${rec(r.outcomes)}; ` +
          `p50 ${f1(r.p50)} ms, p99 ${f1(r.p99)} ms, max ${f1(r.max)} ms${r.bad ? `; not 200: ${r.firstBad.join(', ')}` : ''}`,
      );
    }
  });
  return out.join('\n');
}

interface Rss {
  before?: number;
  /** At the end of the mix after the hostile clients, and idle --after s later. */
  after?: number;
  idle?: number;
  idleChangePercent: number;
}

/** The median RSS (MB) of the samples in `phase`, from `skip` (a fraction) of its length on. */
function medianRss(report: ProcessReport, phase: Phase | undefined, skip: number): number | undefined {
  if (!phase) return undefined;
  const from = phase.from + (phase.to - phase.from) * skip;
  const values = report.series.filter((s) => s.t > from && s.t <= phase.to + 1e-9).map((s) => s.rssMb).sort((a, b) => a - b);
  return values.length === 0 ? undefined : percentile(values, 50);
}

function printServer(report: ProcessReport | undefined, phases: Phase[], rss: Rss, o: HostileOptions, v: ReturnType<typeof verdict>): string {
  if (!report) return '\n== server: no process to sample (give --pid): RSS and CPU not measured';
  const rows = [['phase', 'seconds', 'RSS start MB', 'max MB', 'end MB', 'CPU % of a core', 'RSS every 5 s (MB)']];
  for (const p of phases) {
    const points = report.series.filter((s) => s.t > p.from && s.t <= p.to + 1e-9);
    if (points.length === 0) continue;
    const every5: string[] = [];
    let next = p.from;
    for (const s of points) {
      if (s.t >= next) {
        every5.push(f0(s.rssMb));
        next += 5;
      }
    }
    const cpu = points.reduce((a, s) => a + s.cpuPercent, 0) / points.length;
    rows.push([p.name, f0(p.to - p.from), f0(points[0]!.rssMb), f0(Math.max(...points.map((s) => s.rssMb))), f0(points.at(-1)!.rssMb), f0(cpu), every5.join(' ')]);
  }
  return [
    `\n== server process tree (pid ${report.pid}; ${report.processes.map((p) => `${p.pid} ${p.comm}`).join(', ')})`,
    table(rows, [0, 6]),
    `RSS: before any load ${f1(report.rssInitialMb)} MB, peak ${f1(report.rssMaxMb)} MB (target < ${o.maxRss} MB); median under the mix before the hostile clients ${f1(rss.before)} MB, ` +
      `over the last ${o.after / 2} s of the mix after they were gone ${f1(rss.after)} MB (${signedPercent(v.rssChangePercent)}; target at most +${o.maxRssChange} %), ` +
      `idle ${o.after} s later ${f1(rss.idle)} MB (${signedPercent(rss.idleChangePercent)}; not judged: an idle process runs no GC to give memory back)`,
    `host: postgres ${f0(report.postgresCpuPercent)} % of a core, all ${report.cores} cores ${f0(report.hostCpuPercent)} % busy over the run`,
  ].join('\n');
}

function printMetrics(scrapes: Array<[string, Map<string, number> | undefined]>): string {
  const keys = [...new Set(scrapes.flatMap(([, m]) => (m ? [...m.keys()] : [])))];
  const out = ['\n== server /metrics (shedding, stalls, streams)'];
  if (keys.length) {
    out.push(table([['metric', ...scrapes.map(([name]) => name)], ...keys.map((k) => [k, ...scrapes.map(([, m]) => (m === undefined ? 'n/a' : m.has(k) ? String(m.get(k)) : '-'))])]));
  }
  const failed = scrapes.filter(([, m]) => m === undefined).map(([name]) => name);
  if (failed.length) out.push(`/metrics did not answer within 5 s: ${failed.join(', ')}`);
  const absent = EXPECTED_METRICS.filter((name) => !keys.some((k) => k === name || k.startsWith(`${name}{`)));
  if (absent.length) out.push(`absent from this build: ${absent.join(', ')}`);
  return out.join('\n');
}

async function main({ values, fail }: ScenarioArgs<typeof HOSTILE_OPTIONS>): Promise<void> {
  const o = parseHostileOptions(values, fail);
  const paths = readUrlFile(resolve(o.urlFile));
  const machine = { cores: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version };
  process.stdout.write(`machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, node ${machine.node}; a socket's initial receive buffer (tcp_rmem) ${tcpRmemDefault()}\n`);

  let server: StartedServer | undefined;
  let hostile: HostileProcess | undefined;
  let prober: HostileProcess | undefined;
  const stopServer = async () => {
    if (!server) return;
    const s = server;
    server = undefined;
    process.stdout.write(`server stopped (${await s.stop()}); its output is in ${s.logFile}\n`);
  };
  const onSignal = () => {
    hostile?.kill();
    prober?.kill();
    void stopServer().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    let pid = o.pid;
    if (o.start) {
      const logFile = o.serverLog ?? join(tmpdir(), `cqs-hostile-server-${process.pid}.log`);
      process.stdout.write(`starting: ${o.start}\n`);
      server = await startServer(o.start, new URL(paths[0]!, o.base).href, logFile, o.startTimeout * 1000);
      pid = server.pid;
      process.stdout.write(`server pid ${pid} (output: ${logFile})\n`);
    } else if (pid === undefined) {
      pid = listenerPid(o.port);
      process.stdout.write(pid === undefined ? `warning: no process found listening on port ${o.port}: RSS and CPU not measured (give --pid)\n` : `server: pid ${pid} listens on port ${o.port}\n`);
    } else if (!processExists(pid)) {
      throw new Error(`no process ${pid}`);
    }

    const newest = await newestLog(o.base);
    const targets = hostileTargets(newest, o);
    const specs = hostileSpecs(targets, o);
    const count = (kind: string) => specs.filter((s) => s.kind === kind).length;
    const a = o.attacks;
    const attackText = [a.idle ? `${a.idle} idle` : '', a.slowloris ? `${a.slowloris} slowloris` : '', a.slowReaders ? `${a.slowReaders} slow readers at each of ${a.readRates.join(', ')} B/s` : '']
      .filter(Boolean)
      .join(', ');
    const specsText = `${count('ndjson')} NDJSON, ${count('events-backlog')} event streams with a backlog, ${count('events-live')} live; from ${o.spread ? '127.0.0.2..254' : (specs[0]?.localAddress ?? 'the default address')}` +
      `${attackText ? `; ${attackText} from ${a.address ?? 'any address'}` : ''}${a.readinessMs ? `; readiness every ${a.readinessMs} ms from ${a.probeAddress ?? 'any address'}${a.probePort ? ` on port ${a.probePort}` : ''}` : ''}`;
    process.stdout.write(
      `newest log ${newest.timestamp} (contract ${newest.contractId}); hostile clients: ${specsText}\n` +
        `  NDJSON: ${targets.ndjsonUrls.join(' ')}\n  live: ${targets.liveUrls.join(' ')}\n` +
        `  backlog from ${targets.backlogStart} (Last-Event-ID ${targets.lastEventId} or timestamp=gte:): ${targets.backlogUrls.join(' ')}\n`,
    );

    const expected = await preflight(o.base, paths, {});
    const byStatus = new Map<number | null, number>();
    for (const s of expected) byStatus.set(s, (byStatus.get(s) ?? 0) + 1);
    process.stdout.write(`mix: ${paths.length} URLs from ${o.urlFile}; pre-flight: ${[...byStatus].map(([k, v]) => `${k ?? 'failed'}: ${v}`).join(', ')}\n`);

    const sampler = pid !== undefined ? new ProcessSampler(pid, o.sampleMs) : undefined;
    sampler?.start();
    const t0 = performance.now();
    const since = (t = performance.now()) => (t - t0) / 1000;
    const phases: Phase[] = [];
    const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const from = since();
      process.stderr.write(`${name} (${from.toFixed(0)} s)\n`);
      try {
        return await work();
      } finally {
        phases.push({ name, from, to: since() });
      }
    };
    const rssMb = () => (pid === undefined ? undefined : (sampleTree(pid)?.rssKb ?? NaN) / 1024);
    const mix = { timeout: o.timeout, headers: {} };
    const scrapes: Array<[string, Map<string, number> | undefined]> = [];
    o.attacks.readerPath = targets.ndjsonUrls[0]!;
    const workerConfig = { targets, ndjson: o.ndjson, events: o.events, spread: o.spread, host: o.host, port: o.port, hostHeader: o.base.host, probeMs: o.probeMs, attacks: o.attacks };

    if (o.warmup > 0) await phase('warm-up', () => runLoad(o.base, paths, o.connections, o.warmup, mix));
    const rounds: Round[] = [];
    for (let r = 1; r <= o.rounds; r++) {
      const n = o.rounds > 1 ? ` ${r}` : '';
      const alone = await phase(`alone${n}`, () => runLoad(o.base, paths, o.connections, o.duration, mix));
      scrapes.push([`before${n}`, await scrape(o.base)]);

      // fresh hostile clients each round, in their own process (ready before the settle starts); the
      // readiness probe in a process of its own, so that its times are not those of the attackers' event loop
      const clients = await HostileProcess.start({ ...workerConfig, attacks: { ...o.attacks, readinessMs: 0 } });
      hostile = clients;
      const probes = o.attacks.readinessMs > 0
        ? await HostileProcess.start({ ...workerConfig, ndjson: 0, events: 0, attacks: { ...o.attacks, idle: 0, slowloris: 0, slowReaders: 0 } })
        : undefined;
      prober = probes;
      // the attackers share the machine's cores with the server: what they cost is printed beside the mix
      const attackerSampler = clients.pid !== undefined ? new ProcessSampler(clients.pid, 1000) : undefined;
      attackerSampler?.start();
      const alive = () => {
        if (clients.failure) throw new Error(clients.failure);
        if (probes?.failure) throw new Error(probes.failure);
      };
      let openedAt = 0;
      await phase(`settle${n}`, async () => {
        openedAt = performance.now();
        // a connection the server's backlog does not take yet keeps trying; the measurement goes on
        void probes?.open().catch(() => undefined);
        const opening = clients.open().catch(() => undefined);
        await Promise.race([opening, sleep(o.settle * 1000)]);
        await sleep(Math.max(0, o.settle * 1000 - (performance.now() - openedAt)));
        alive();
      });
      scrapes.push([`hostile open${n}`, await scrape(o.base)]);
      const attack = await phase(`under attack${n}`, () => runLoad(o.base, paths, o.connections, o.duration, mix));
      scrapes.push([`after attack${n}`, await scrape(o.base)]);
      await phase(`hold${n}`, async () => {
        // until --hold, or every connection closed; past --hold while a stream is not judged yet
        const held = () => performance.now() - openedAt;
        for (;;) {
          alive();
          if (clients.settled()) break;
          if (held() >= o.hold * 1000 && (held() >= (o.hold + o.maxStall) * 1000 || awaitingJudgement(clients.tracks, performance.now(), o.maxStall) === 0)) break;
          await sleep(o.probeMs);
        }
      });
      const holdEnd = await clients.look();
      const attackerCpuPercent = attackerSampler?.stop().cpuPercent;
      const held = await clients.report();
      const readiness = (await probes?.report())?.readiness;
      const attacks: AttackReport | undefined = held || readiness ? { seconds: 0, held: [], readers: [], ...held, ...(readiness ? { readiness } : {}) } : undefined;
      scrapes.push([`end of hold${n}`, await scrape(o.base)]);
      await Promise.all([clients.close(), probes?.close()]);
      hostile = undefined;
      prober = undefined;
      rounds.push({ alone, attack, tracks: clients.tracks, holdEnd, ...(attacks ? { attacks } : {}), ...(attackerCpuPercent !== undefined ? { attackerCpuPercent } : {}) });
    }
    // the mix goes on once the hostile clients are gone: RSS under the same load as before them
    const afterLoad = await phase('after', () => runLoad(o.base, paths, o.connections, o.after, mix));
    scrapes.push([`after (mix)`, await scrape(o.base)]);
    await phase('idle', () => sleep(o.after * 1000));
    const rssIdle = rssMb();
    scrapes.push([`${o.after} s idle`, await scrape(o.base)]);
    const recovered = await answersAsUsual(o.base, paths[0]!, expected[0] ?? null);
    const report = sampler?.stop();
    // the heap swings by a third under the mix (a collection every few seconds): one instant says little,
    // so RSS under the mix is the median of its samples, over the first mix alone and over the second
    // half of the mix after the hostile clients left
    const rssBefore = report && medianRss(report, phases.find((p) => p.name === (o.rounds > 1 ? 'alone 1' : 'alone')), 0);
    const rssAfter = report && medianRss(report, phases.find((p) => p.name === 'after'), 0.5);

    const timeoutMs = o.timeout * 1000;
    const mixRounds: MixRound[] = rounds.map((r) => ({ alone: mixNumbers(r.alone, expected, timeoutMs), attack: mixNumbers(r.attack, expected, timeoutMs) }));
    const after = mixNumbers(afterLoad, expected, timeoutMs);
    const tracks = rounds.flatMap((r) => r.tracks);
    const roundOf = new Map(rounds.flatMap((r, i) => r.tracks.map((t) => [t, i] as const)));
    const endOf = (t: Track) => rounds[roundOf.get(t)!]!.holdEnd;
    const kinds = HOSTILE_KINDS.map((kind) => summarizeKind(kind, tracks, endOf, o.maxStall));
    const measured = {
      rounds: mixRounds,
      ...(report ? { rssMaxMb: report.rssMaxMb } : {}),
      ...(rssBefore !== undefined ? { rssBeforeMb: rssBefore } : {}),
      ...(rssAfter !== undefined ? { rssAfterMb: rssAfter } : {}),
      kinds,
      recovered,
    };
    const v = verdict(measured, o);
    rounds.forEach((r, i) => r.attacks && v.problems.push(...attackProblems(r.attacks, o.readerBounds, rounds.length > 1 ? `round ${i + 1}` : '')));
    const rss: Rss = {
      ...(rssBefore !== undefined ? { before: rssBefore } : {}),
      ...(rssAfter !== undefined ? { after: rssAfter } : {}),
      ...(rssIdle !== undefined ? { idle: rssIdle } : {}),
      idleChangePercent: rssBefore !== undefined && rssIdle !== undefined ? (100 * (rssIdle - rssBefore)) / rssBefore : NaN,
    };

    const out = [printMix(mixRounds, after, o, v)];
    if (o.ndjson + o.events > 0) out.push(printHostile(kinds, o, specsText));
    out.push(printAttacks(rounds.map((r) => r.attacks), o));
    out.push(`\nthe hostile clients' process (on the server's cores): ${rounds.map((r) => `${f0(r.attackerCpuPercent)} %`).join(', ')} of a core from their opening to the end of the hold`);
    const unjudged = rounds.reduce((sum, r) => sum + awaitingJudgement(r.tracks, r.holdEnd, o.maxStall), 0);
    if (unjudged > 0) out.push(`note: ${unjudged} open streams had gone 20 to ${o.maxStall} s without progress when the hold ended: not judged (a longer --hold judges them)`);
    const backlog = tracks.filter((t) => t.kind === 'events-backlog');
    if (backlog.length > 0 && backlog.every((t) => t.head?.status === 400)) {
      out.push('note: every backlog request was answered 400: the server takes a start at most live.maxBacklog (7 days) before its clock; ' +
        'on a database whose newest log is older, start the server with HIERO_MIRROR_REST_LIVE_MAXBACKLOG=1000d');
    }
    out.push(printServer(report, phases, rss, o, v));
    out.push(printMetrics(scrapes));
    out.push(`\nafter it all: the server ${recovered ? 'answered liveness and a mix URL as usual' : 'did NOT answer as usual within 5 s'}`);
    out.push(v.problems.length ? `FAIL: ${v.problems.join('; ')}` : 'PASS');
    process.stdout.write(`${out.join('\n')}\n`);

    if (o.json) {
      const doc = {
        at: new Date().toISOString(),
        machine,
        options: { ...o, base: o.base.origin },
        newestLog: newest,
        targets,
        phases,
        mix: {
          rounds: mixRounds.map((r, i) => ({ ...r, throughputRatio: v.ratios[i]!.throughput, p99Ratio: v.ratios[i]!.p99 })),
          after,
          throughputRatio: v.throughputRatio,
          p99Ratio: v.p99Ratio,
        },
        hostile: {
          kinds,
          connections: tracks.map((t) => ({
            round: roundOf.get(t)! + 1,
            ...t,
            fate: fateOf(t, endOf(t)),
            openedAtS: since(t.openedAt),
            lastProgressAtS: since(t.lastProgressAt),
            closedAtS: t.closedAt === undefined ? null : since(t.closedAt),
          })),
        },
        server: report
          ? { ...report, rssBeforeMb: rssBefore, rssAfterMb: rssAfter, rssIdleMb: rssIdle, rssChangePercent: v.rssChangePercent, rssIdleChangePercent: rss.idleChangePercent }
          : null,
        metrics: Object.fromEntries(scrapes.map(([name, m]) => [name, m ? Object.fromEntries(m) : null])),
        attacks: rounds.map((r) => r.attacks ?? null),
        attackerCpuPercent: rounds.map((r) => r.attackerCpuPercent ?? null),
        recovered,
        problems: v.problems,
      };
      writeFileSync(o.json, `${JSON.stringify(doc, null, 2)}\n`);
      process.stdout.write(`wrote ${o.json}\n`);
    }
    process.exitCode = v.problems.length ? 1 : 0;
  } finally {
    if (hostile) await hostile.close();
    if (prober) await prober.close();
    await stopServer();
  }
}

export default defineScenario({ usage: HOSTILE_USAGE, options: HOSTILE_OPTIONS, run: main });
