/**
 * The pure parts of bench/scenarios/citusWork.ts: /proc stat lines, a cluster's CPU ticks (a backend that
 * exits between two readings is counted once), the window arithmetic with the background subtracted,
 * and the table. No cluster needed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Snapshot,
  backgroundRate,
  cellOf,
  clusterTicks,
  forbiddenAround,
  overlapsBackground,
  quietStart,
  parsePostmasterPid,
  perRequest,
  rawWork,
  renderTable,
  windowWork,
} from '../../bench/lib/citusWork.ts';
import { type StatLine, parseStat } from '../../bench/lib/proc.ts';

/** A stat line as the kernel writes it: pid (comm) state ppid ... utime stime cutime cstime ... */
const statLine = (pid: number, comm: string, ppid: number, utime: number, stime: number, cutime = 0, cstime = 0) =>
  `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560 1520 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 672540 225046528 4243 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n`;

const stats = (...lines: string[]) => new Map(lines.map((l) => parseStat(l)!).map((s): [number, StatLine] => [s.pid, s]));

test('a /proc stat line: command names with spaces and parentheses, the four times apart', () => {
  const s = parseStat(statLine(15424, 'postgres: postgres mirror_node_v2 127.0.0.1(47290) idle', 1, 120, 30, 4500, 900));
  assert.deepEqual(s, {
    pid: 15424,
    comm: 'postgres: postgres mirror_node_v2 127.0.0.1(47290) idle',
    ppid: 1,
    utime: 120,
    stime: 30,
    cutime: 4500,
    cstime: 900,
    ticks: 120 + 30 + 4500 + 900,
  });
  assert.equal(parseStat('garbage'), undefined);
  assert.equal(parseStat('12 (short) S 1 2'), undefined);
});

test("a cluster's ticks: the postmaster's own and reaped children's, its live children's own, nothing else", () => {
  const before = stats(
    statLine(100, 'postgres', 1, 10, 5, 1000, 200), // postmaster
    statLine(101, 'postgres', 100, 40, 10), // backend
    statLine(102, 'postgres', 100, 7, 3, 99, 99), // a child's own children are not ours to count twice
    statLine(200, 'postgres', 1, 500, 500), // another cluster's postmaster
    statLine(201, 'postgres', 200, 50, 50),
  );
  assert.equal(clusterTicks(100, before), 10 + 5 + 1000 + 200 + 40 + 10 + 7 + 3);
  assert.equal(clusterTicks(200, before), 500 + 500 + 50 + 50);
  assert.equal(clusterTicks(300, before), undefined);
  // the bench's own reading session is left out
  assert.equal(clusterTicks(100, before, new Set([101])), 10 + 5 + 1000 + 200 + 7 + 3);

  // backend 101 used 20 more ticks and exited (reaped: its whole time moves to cutime/cstime);
  // a task connection 103 opened and closed in between (12 ticks); 104 is new and alive
  const after = stats(
    statLine(100, 'postgres', 1, 10, 5, 1000 + 55 + 8, 200 + 15 + 4),
    statLine(102, 'postgres', 100, 7, 3, 99, 99),
    statLine(104, 'postgres', 100, 2, 1),
    statLine(200, 'postgres', 1, 500, 500),
  );
  assert.equal(clusterTicks(100, after)! - clusterTicks(100, before)!, 20 + 12 + 3);
});

test('the postmaster pid is the first line of postmaster.pid', () => {
  assert.equal(parsePostmasterPid('15378\n/tmp/citus/coord\n1795848079\n5711\n/var/run/postgresql\n127.0.0.1\n'), 15378);
  assert.throws(() => parsePostmasterPid('\n'), /not a postmaster.pid/);
});

const snap = (at: number, coordinator: [number, number], workers: [number, number][], ticks: number[]): Snapshot => ({
  at,
  coordinator: { xacts: coordinator[0], sessions: coordinator[1] },
  workers: workers.map(([xacts, sessions]) => ({ xacts, sessions })),
  ticks,
});

test('a window: counter and CPU deltas, the background subtracted per second of each reading', () => {
  const idleStart = snap(0, [1000, 10], [[5000, 50], [7000, 70]], [100, 200, 300]);
  const idleEnd = snap(10_000, [1002, 10], [[5010, 50], [7010, 70]], [110, 205, 305]); // 10 s idle
  const background = backgroundRate(idleStart, idleEnd, 100);
  const round = (x: number) => Math.round(x * 1e9) / 1e9;
  assert.deepEqual(Object.fromEntries(Object.entries(background).map(([k, v]) => [k, round(v)])),
    { statements: 0.2, tasks: 2, coordinatorSessions: 0, workerSessions: 0, cpuSeconds: 0.02 });

  const start = snap(20_000, [2000, 20], [[6000, 60], [8000, 80]], [1000, 2000, 3000]);
  const cpuEnd = { at: 22_000, ticks: [1100, 2050, 3050] }; // 2 s of requests: 200 ticks = 2 s of CPU
  const end = snap(35_000, [2103, 21], [[6900, 64], [8810, 86]], [1200, 2100, 3100]); // 15 s after start
  assert.deepEqual(rawWork(start, end, 100), { statements: 103, tasks: 1710, coordinatorSessions: 1, workerSessions: 10, cpuSeconds: 4 });
  const w = windowWork(start, cpuEnd, end, 100, background);
  assert.equal(round(w.statements), 103 - 0.2 * 15);
  assert.equal(round(w.tasks), 1710 - 2 * 15);
  assert.equal(w.workerSessions, 10);
  assert.ok(Math.abs(w.cpuSeconds - (2 - 0.02 * 2)) < 1e-12, String(w.cpuSeconds)); // CPU only up to cpuEnd
  // without a background: the raw counters, and the CPU up to cpuEnd
  assert.deepEqual(windowWork(start, cpuEnd, end, 100), { ...rawWork(start, end, 100), cpuSeconds: 2 });

  const per = perRequest(w, 100);
  assert.equal(round(per.statements), 1);
  assert.equal(round(per.tasks), 16.8);
  assert.ok(Number.isNaN(perRequest(w, 0).statements));
});

test('the table: groups, per-request figures, ratios service/reference, differing counts', () => {
  const work = (statements: number, tasks: number, cpuSeconds: number) => ({ statements, tasks, coordinatorSessions: 0, workerSessions: tasks / 10, cpuSeconds });
  const text = renderTable([
    { route: 'lookup', service: cellOf(work(170, 1700, 0.85), 85, 12.34), reference: cellOf(work(85, 850, 0.425), 85, 20) },
    { route: 'logs', service: cellOf(work(0, 0, 0), 100, 5), reference: cellOf(work(100, 0, 0.1), 99, 6) },
    { route: 'total', service: cellOf(work(170, 1700, 0.85), 185, 8), reference: cellOf(work(185, 850, 0.525), 184, 9) },
  ]);
  const lines = text.split('\n');
  assert.equal(lines.length, 5);
  assert.match(lines[0]!, /this service, per request.*reference, per request.*service\/reference/);
  assert.deepEqual(lines[1]!.split(/\s+/), ['route', 'requests', 'stmts', 'tasks', 'conns', 'CPU', 'ms', 'p50', 'ms', 'stmts', 'tasks', 'conns', 'CPU', 'ms', 'p50', 'ms', 'stmts', 'tasks', 'CPU']);
  assert.deepEqual(lines[2]!.split(/\s+/), ['lookup', '85', '2.00', '20.00', '2.00', '10.00', '12.3', '1.00', '10.00', '1.00', '5.00', '20.0', '2.00', '2.00', '2.00']);
  // a reference figure of 0: no ratio; answered counts that differ are both shown
  assert.deepEqual(lines[3]!.split(/\s+/), ['logs', '100/99', '0.00', '0.00', '0.00', '0.00', '5.0', '1.01', '0.00', '0.00', '1.01', '6.0', '0.00', '-', '0.00']);
  assert.match(lines[4]!, /^total +185\/184 /);
  // columns line up: every row as wide as the header
  assert.ok(lines.slice(1).every((l) => l.length <= lines[1]!.length), text);
});

test("the background's moments: repeated every period with the guard; windows placed between them", () => {
  const period = 60_000;
  const guard = 3_000;
  const moments = [57_000, 60_000 + 8_000]; // seen at :57 and at :08 of the next minute
  assert.deepEqual(forbiddenAround(moments, period, guard, 100_000, 130_000), [
    { from: 114_000, to: 120_000 }, // 57 s + 60 s
    { from: 125_000, to: 131_000 }, // 68 s + 60 s
  ]);
  assert.deepEqual(forbiddenAround([57_000], period, guard, 0, 200_000).map((f) => f.from), [-6_000, 54_000, 114_000, 174_000]); // -3 s + 3 s reaches 0

  // at 120 s (:00), 20 s long: :08 is in the way, the first place is after 128 s + 3 s
  assert.equal(quietStart(120_000, 20_000, moments, period, guard), 131_001);
  // 4 s fit between :57's guard (up to :00) and :08's (from :05)
  assert.equal(quietStart(120_000, 4_000, moments, period, guard), 120_001);
  assert.equal(quietStart(110_000, 3_000, moments, period, guard), 110_000);
  // a window longer than every gap (43 s between :11 and :54) has no place
  assert.equal(quietStart(120_000, 50_000, moments, period, guard), undefined);
  // nothing seen: anywhere
  assert.equal(quietStart(5, 50_000, [], period, guard), 5);

  assert.equal(overlapsBackground(131_001, 151_001, moments, period, guard), false);
  assert.equal(overlapsBackground(131_001, 175_000, moments, period, guard), true); // into :54
});
