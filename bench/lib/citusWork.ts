/**
 * The counters of bench/scenarios/citusWork.ts and their arithmetic: database work per answered request on a
 * Citus cluster, from PostgreSQL's transaction counters (coordinator and workers) and the CPU time of
 * every PostgreSQL process of the clusters. The reading of the counters is here too; the arithmetic
 * and the table are pure (test/bench/citusWork.test.ts).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { type StatLine, readAllStats } from './proc.ts';

/** One node's counters of the measured database (pg_stat_database). */
export interface NodeCounters {
  /** xact_commit + xact_rollback */
  xacts: number;
  /** sessions established */
  sessions: number;
}

/** Everything read at one moment: the counters of every node and the CPU ticks of every cluster. */
export interface Snapshot {
  /** ms, Date.now() */
  at: number;
  coordinator: NodeCounters;
  workers: NodeCounters[];
  /** CPU clock ticks of each cluster (clusterTicks), in the order of the data directories */
  ticks: number[];
}

/** The CPU ticks of every cluster, read apart from the counters (at the end of a window's requests). */
export interface CpuReading {
  /** ms, Date.now() */
  at: number;
  ticks: number[];
}

/** Database work over an interval (a window of requests, or a background rate per second). */
export interface Work {
  /** transactions on the coordinator */
  statements: number;
  /** transactions on the workers, summed */
  tasks: number;
  /** sessions opened on the coordinator (the servers' pools) */
  coordinatorSessions: number;
  /** sessions opened on the workers (Citus's task connections beyond the cached one) */
  workerSessions: number;
  /** CPU seconds of every PostgreSQL process of the clusters */
  cpuSeconds: number;
}

export const NO_WORK: Work = { statements: 0, tasks: 0, coordinatorSessions: 0, workerSessions: 0, cpuSeconds: 0 };

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * CPU ticks of one cluster: the postmaster's own time and that of its children that have exited
 * (cutime + cstime: backends and Citus's task connections that ended), plus the own time of every
 * live child (ppid = postmaster). A child that ends between two readings moves from the second sum
 * to the first with all its time, so the difference of two readings counts it once. The live
 * children in `exclude` (the bench's own reading sessions, which live until after the last reading)
 * are left out. Undefined when the postmaster is not among `stats`.
 */
export function clusterTicks(postmaster: number, stats: ReadonlyMap<number, StatLine>, exclude: ReadonlySet<number> = new Set()): number | undefined {
  const root = stats.get(postmaster);
  if (!root) return undefined;
  let ticks = root.utime + root.stime + root.cutime + root.cstime;
  for (const s of stats.values()) if (s.ppid === postmaster && s.pid !== postmaster && !exclude.has(s.pid)) ticks += s.utime + s.stime;
  return ticks;
}

/** The postmaster's pid: the first line of <datadir>/postmaster.pid. */
export function parsePostmasterPid(text: string): number {
  const pid = Number(text.split('\n', 1)[0]!.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`not a postmaster.pid: first line ${JSON.stringify(text.split('\n', 1)[0])}`);
  return pid;
}

export function readPostmasterPid(dataDir: string): number {
  return parsePostmasterPid(readFileSync(`${dataDir}/postmaster.pid`, 'utf8'));
}

/** CPU ticks of each cluster now (one scan of /proc), without the processes in `exclude`. */
export function readCpu(postmasters: readonly number[], exclude: ReadonlySet<number> = new Set()): CpuReading {
  const stats = readAllStats();
  const ticks = postmasters.map((pid) => {
    const t = clusterTicks(pid, stats, exclude);
    if (t === undefined) throw new Error(`postmaster ${pid} is gone`);
    return t;
  });
  return { at: Date.now(), ticks };
}

/**
 * A connection that reads one node's counters. The statement calls pg_stat_get_db_* with the
 * database's oid and reads no table: PostgreSQL then has nothing of this session's to flush to the
 * shared statistics (its pending list stays empty), so its own transactions are not added to the
 * counters until it disconnects, after the last reading. Each reading is a transaction of its own, so
 * it sees fresh values (stats_fetch_consistency caches them for the length of a transaction).
 */
export class CounterReader {
  private oid?: number;
  /** the backend's pid: its CPU is the bench's, not the servers' */
  pid = 0;
  private constructor(private readonly client: pg.Client) {}

  static async open(url: string): Promise<CounterReader> {
    const client = new pg.Client({ connectionString: url, application_name: 'cqs-bench-citus-work' });
    await client.connect();
    const reader = new CounterReader(client);
    const { rows } = await client.query<{ oid: number; pid: number }>(
      'select oid::int as oid, pg_backend_pid() as pid from pg_database where datname = current_database()',
    );
    reader.oid = rows[0]!.oid;
    reader.pid = rows[0]!.pid;
    return reader;
  }

  async read(): Promise<NodeCounters> {
    const { rows } = await this.client.query<{ xacts: string; sessions: string }>(
      'select pg_stat_get_db_xact_commit($1::oid) + pg_stat_get_db_xact_rollback($1::oid) as xacts, pg_stat_get_db_sessions($1::oid) as sessions',
      [this.oid],
    );
    return { xacts: Number(rows[0]!.xacts), sessions: Number(rows[0]!.sessions) };
  }

  /** A setting of the node (data_directory: which cluster it is). */
  async setting(name: string): Promise<string> {
    const { rows } = await this.client.query<{ v: string }>('select current_setting($1) as v', [name]);
    return rows[0]!.v;
  }

  end(): Promise<void> {
    return this.client.end();
  }
}

/** The work between two snapshots, with nothing subtracted. */
export function rawWork(before: Snapshot, after: Snapshot, clockTicks: number): Work {
  return {
    statements: after.coordinator.xacts - before.coordinator.xacts,
    tasks: sum(after.workers.map((w, i) => w.xacts - before.workers[i]!.xacts)),
    coordinatorSessions: after.coordinator.sessions - before.coordinator.sessions,
    workerSessions: sum(after.workers.map((w, i) => w.sessions - before.workers[i]!.sessions)),
    cpuSeconds: (sum(after.ticks) - sum(before.ticks)) / clockTicks,
  };
}

export function scaleWork(w: Work, factor: number): Work {
  return {
    statements: w.statements * factor,
    tasks: w.tasks * factor,
    coordinatorSessions: w.coordinatorSessions * factor,
    workerSessions: w.workerSessions * factor,
    cpuSeconds: w.cpuSeconds * factor,
  };
}

export function addWork(a: Work, b: Work): Work {
  return {
    statements: a.statements + b.statements,
    tasks: a.tasks + b.tasks,
    coordinatorSessions: a.coordinatorSessions + b.coordinatorSessions,
    workerSessions: a.workerSessions + b.workerSessions,
    cpuSeconds: a.cpuSeconds + b.cpuSeconds,
  };
}

/** The background per second: the work of an idle interval (no requests) divided by its length. */
export function backgroundRate(before: Snapshot, after: Snapshot, clockTicks: number): Work {
  return scaleWork(rawWork(before, after, clockTicks), 1000 / Math.max(1, after.at - before.at));
}

/**
 * The work of one window of requests. The counters are read at `start` and `end` (after the
 * settling wait, when the servers' backends have flushed their counts); the CPU at `start` and at
 * `cpuEnd`, right after the last answer, so that the idle wait adds no background CPU. The background
 * (work per second while idle) is subtracted for the length of each: counters over start..end, CPU
 * over start..cpuEnd.
 */
export function windowWork(start: Snapshot, cpuEnd: CpuReading, end: Snapshot, clockTicks: number, background: Work = NO_WORK): Work {
  const counters = rawWork(start, end, clockTicks);
  const counterSeconds = (end.at - start.at) / 1000;
  const cpuSeconds = (sum(cpuEnd.ticks) - sum(start.ticks)) / clockTicks;
  const cpuWindow = (cpuEnd.at - start.at) / 1000;
  return {
    statements: counters.statements - background.statements * counterSeconds,
    tasks: counters.tasks - background.tasks * counterSeconds,
    coordinatorSessions: counters.coordinatorSessions - background.coordinatorSessions * counterSeconds,
    workerSessions: counters.workerSessions - background.workerSessions * counterSeconds,
    cpuSeconds: cpuSeconds - background.cpuSeconds * cpuWindow,
  };
}

/** Work per answered request (NaN without answers). */
export function perRequest(w: Work, answered: number): Work {
  return answered > 0 ? scaleWork(w, 1 / answered) : scaleWork(w, NaN);
}

// --- the background's schedule -------------------------------------------------------------------

/**
 * Times (ms) at which the counters moved while nothing was sent: Citus's maintenance daemons check for
 * distributed deadlocks every 2 s over sessions to every node, transactions that read no table and so
 * are reported only when the session next reads one, its two-phase-commit recovery once a minute:
 * some 60-70 transactions land on each node within a few seconds, at the same moment of every minute.
 * A window that contains such a moment is off by that much; windows are placed between them.
 */
export interface Forbidden {
  from: number;
  to: number;
}

/** Every `events` time repeated every `periodMs` around [from, to], widened by `guardMs` either side. */
export function forbiddenAround(events: readonly number[], periodMs: number, guardMs: number, from: number, to: number): Forbidden[] {
  const out: Forbidden[] = [];
  for (const e of events) {
    const first = Math.floor((from - guardMs - e) / periodMs);
    const last = Math.ceil((to + guardMs - e) / periodMs);
    for (let k = first; k <= last; k++) {
      const at = e + k * periodMs;
      if (at + guardMs >= from && at - guardMs <= to) out.push({ from: at - guardMs, to: at + guardMs });
    }
  }
  return out.sort((a, b) => a.from - b.from);
}

/** True when [start, end] meets a background moment (repeated every period, with the guard). */
export function overlapsBackground(start: number, end: number, events: readonly number[], periodMs: number, guardMs: number): boolean {
  return forbiddenAround(events, periodMs, guardMs, start, end).some((f) => f.from <= end && f.to >= start);
}

/**
 * The earliest start at or after `now`, within one period, such that [start, start + lengthMs] meets
 * no background moment; undefined when no gap of the background's schedule is that long.
 */
export function quietStart(now: number, lengthMs: number, events: readonly number[], periodMs: number, guardMs: number): number | undefined {
  const forbidden = forbiddenAround(events, periodMs, guardMs, now, now + periodMs + lengthMs);
  const candidates = [now, ...forbidden.map((f) => f.to + 1)].filter((c) => c >= now && c <= now + periodMs).sort((a, b) => a - b);
  return candidates.find((c) => !forbidden.some((f) => f.from <= c + lengthMs && f.to >= c));
}

// --- the table ---------------------------------------------------------------------------------

/** One server's figures on one row, per answered request. */
export interface Cell {
  answered: number;
  statements: number;
  tasks: number;
  workerSessions: number;
  cpuMs: number;
  p50: number;
}

export interface TableRow {
  route: string;
  service: Cell;
  reference: Cell;
}

export function cellOf(work: Work, answered: number, p50: number): Cell {
  const w = perRequest(work, answered);
  return { answered, statements: w.statements, tasks: w.tasks, workerSessions: w.workerSessions, cpuMs: w.cpuSeconds * 1000, p50 };
}

const fixed = (digits: number) => (x: number) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
/** service / reference; '-' when the reference's figure is 0 or unknown. */
export const ratio = (a: number, b: number): string => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? (a / b).toFixed(2) : '-');

/**
 * route | requests | per server: statements, shard tasks, worker connections opened, PG CPU ms, p50
 * ms (each per answered request) | service/reference of statements, tasks and CPU. The first row names
 * the column groups. Requests is the answered count, "service/reference" when they differ.
 */
export function renderTable(rows: readonly TableRow[]): string {
  const f2 = fixed(2);
  const f1 = fixed(1);
  const server = (c: Cell) => [f2(c.statements), f2(c.tasks), f2(c.workerSessions), f2(c.cpuMs), f1(c.p50)];
  const serverHead = ['stmts', 'tasks', 'conns', 'CPU ms', 'p50 ms'];
  const head = ['route', 'requests', ...serverHead, ...serverHead, 'stmts', 'tasks', 'CPU'];
  const body = rows.map((r) => [
    r.route,
    r.service.answered === r.reference.answered ? String(r.service.answered) : `${r.service.answered}/${r.reference.answered}`,
    ...server(r.service),
    ...server(r.reference),
    ratio(r.service.statements, r.reference.statements),
    ratio(r.service.tasks, r.reference.tasks),
    ratio(r.service.cpuMs, r.reference.cpuMs),
  ]);
  const all = [head, ...body];
  const widths = head.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  const gap = '  ';
  const line = (r: string[]) => r.map((text, c) => (c === 0 ? text.padEnd(widths[c]!) : text.padStart(widths[c]!))).join(gap).trimEnd();
  // group titles over their columns: 2..6 this service, 7..11 the reference, 12..14 the ratios
  const span = (from: number, to: number) => widths.slice(from, to + 1).reduce((a, w) => a + w, 0) + gap.length * (to - from);
  const title = (text: string, from: number, to: number) => {
    const width = span(from, to);
    const label = ` ${text} `;
    if (label.length >= width) return label.slice(0, width);
    const left = Math.floor((width - label.length) / 2);
    return '-'.repeat(left) + label + '-'.repeat(width - label.length - left);
  };
  const groups =
    ' '.repeat(span(0, 1)) + gap + title('this service, per request', 2, 6) + gap + title('reference, per request', 7, 11) + gap + title('service/reference', 12, 14);
  return [groups, line(head), ...body.map(line)].join('\n');
}
