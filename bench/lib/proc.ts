/**
 * CPU and memory of a process tree, read from /proc (Linux only).
 *
 * CPU: utime+stime+cutime+cstime summed over the live tree (the root and all its descendants), so
 * forked workers count while they run and, once reaped, through their parent's cutime/cstime.
 * RSS: VmRSS from /proc/<pid>/status summed over the live tree.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';

let clkTck: number | undefined;
export function clockTicks(): number {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** The fields of one /proc/<pid>/stat line that the bench reads; times in clock ticks. */
export interface StatLine {
  pid: number;
  comm: string;
  ppid: number;
  /** the process's own user and system time */
  utime: number;
  stime: number;
  /** user and system time of its children that have exited and been waited for */
  cutime: number;
  cstime: number;
  /** utime + stime + cutime + cstime */
  ticks: number;
}

/**
 * Parses one /proc/<pid>/stat line. The command name sits between the first "(" and the last ")"
 * (it may hold spaces and parentheses); the numbered fields (man 5 proc) follow it.
 */
export function parseStat(text: string): StatLine | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const comm = text.slice(open + 1, close);
  // fields from field 3 (state) on
  const f = text.slice(close + 2).trim().split(/\s+/);
  if (!Number.isInteger(pid) || f.length < 15) return undefined;
  const num = (field: number) => Number(f[field - 3] ?? 0);
  const [utime, stime, cutime, cstime] = [num(14), num(15), num(16), num(17)];
  return { pid, comm, ppid: num(4), utime, stime, cutime, cstime, ticks: utime + stime + cutime + cstime };
}

function readStat(pid: number): StatLine | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const s = parseStat(text);
  return s && { ...s, pid };
}

/** One scan of /proc: every process's stat line, by pid (processes that end meanwhile are left out). */
export function readAllStats(): Map<number, StatLine> {
  const stats = new Map<number, StatLine>();
  for (const pid of allPids()) {
    const s = readStat(pid);
    if (s) stats.set(pid, s);
  }
  return stats;
}

function allPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0) pids.push(pid);
  }
  return pids;
}

function readRssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s*kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export function processExists(pid: number): boolean {
  return readStat(pid) !== undefined;
}

export interface TreeSample {
  /** ms since epoch */
  at: number;
  pids: number[];
  /** per process of the tree: command name and RSS */
  processes: { pid: number; comm: string; rssKb: number }[];
  ticks: number;
  rssKb: number;
  /** CPU ticks of every process named postgres on the host (backends serve the service's queries) */
  postgresTicks: number;
}

/** One scan of /proc: the tree rooted at `root` (CPU and RSS) and the host's postgres processes (CPU). */
export function sampleTree(root: number): TreeSample | undefined {
  const stats = readAllStats();
  if (!stats.has(root)) return undefined;
  const children = new Map<number, number[]>();
  let postgresTicks = 0;
  for (const s of stats.values()) {
    const list = children.get(s.ppid);
    if (list) list.push(s.pid);
    else children.set(s.ppid, [s.pid]);
    if (s.comm === 'postgres') postgresTicks += s.ticks;
  }
  const pids: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  let ticks = 0;
  let rssKb = 0;
  const processes: TreeSample['processes'] = [];
  for (const pid of pids) {
    const s = stats.get(pid);
    const rss = readRssKb(pid);
    ticks += s?.ticks ?? 0;
    rssKb += rss;
    processes.push({ pid, comm: s?.comm ?? '?', rssKb: rss });
  }
  return { at: Date.now(), pids, processes, ticks, rssKb, postgresTicks };
}

/** Whole-host CPU counters from /proc/stat (all cores), in clock ticks. */
export interface HostCpu {
  busy: number;
  total: number;
}

export function sampleHostCpu(): HostCpu {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, total };
}

export interface ProcessReport {
  pid: number;
  /** processes in the tree at the end (root first) with their RSS */
  pids: number[];
  processes: { pid: number; comm: string; rssMb: number }[];
  /** average CPU over the measured interval, % of one core */
  cpuPercent: number;
  /** highest CPU over any sampling interval, % of one core */
  cpuPercentMaxInterval: number;
  rssStartMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  /** RSS when the sampler was created (before any warm-up) */
  rssInitialMb: number;
  /** CPU of every postgres process on the host over the interval, % of one core */
  postgresCpuPercent: number;
  /** busy share of all host cores over the interval, % (100 = every core busy) */
  hostCpuPercent: number;
  cores: number;
  series: { t: number; cpuPercent: number; rssMb: number }[];
}

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Samples the tree every `intervalMs` between start() and stop(). */
export class ProcessSampler {
  private readonly initial: TreeSample;
  private first?: TreeSample;
  private last?: TreeSample;
  private hostFirst?: HostCpu;
  private timer?: NodeJS.Timeout;
  private maxRssKb = 0;
  private maxIntervalPct = 0;
  private series: { t: number; cpuPercent: number; rssMb: number }[] = [];

  constructor(
    readonly pid: number,
    private readonly intervalMs = 500,
  ) {
    const s = sampleTree(pid);
    if (!s) throw new Error(`no process ${pid} (needs Linux /proc)`);
    this.initial = s;
  }

  start(): void {
    this.first = this.last = sampleTree(this.pid) ?? this.initial;
    this.hostFirst = sampleHostCpu();
    this.maxRssKb = this.first.rssKb;
    this.maxIntervalPct = 0;
    this.series = [];
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  private tick(): TreeSample | undefined {
    const s = sampleTree(this.pid);
    if (!s || !this.last || !this.first) return undefined;
    const seconds = (s.at - this.last.at) / 1000;
    if (seconds > 0) {
      const pct = ((s.ticks - this.last.ticks) / clockTicks() / seconds) * 100;
      this.maxIntervalPct = Math.max(this.maxIntervalPct, pct);
      this.series.push({ t: round1((s.at - this.first.at) / 1000), cpuPercent: round1(pct), rssMb: mb(s.rssKb) });
    }
    this.maxRssKb = Math.max(this.maxRssKb, s.rssKb);
    this.last = s;
    return s;
  }

  stop(): ProcessReport {
    if (this.timer) clearInterval(this.timer);
    if (!this.first || !this.hostFirst) throw new Error('sampler was not started');
    const end = this.tick() ?? this.last ?? this.first;
    const host = sampleHostCpu();
    const seconds = Math.max(0.001, (end.at - this.first.at) / 1000);
    const tck = clockTicks();
    return {
      pid: this.pid,
      pids: end.pids,
      processes: end.processes.map((p) => ({ pid: p.pid, comm: p.comm, rssMb: mb(p.rssKb) })),
      cpuPercent: round1(((end.ticks - this.first.ticks) / tck / seconds) * 100),
      cpuPercentMaxInterval: round1(this.maxIntervalPct),
      rssStartMb: mb(this.first.rssKb),
      rssEndMb: mb(end.rssKb),
      rssMaxMb: mb(this.maxRssKb),
      rssInitialMb: mb(this.initial.rssKb),
      postgresCpuPercent: round1(((end.postgresTicks - this.first.postgresTicks) / tck / seconds) * 100),
      hostCpuPercent: round1(((host.busy - this.hostFirst.busy) / Math.max(1, host.total - this.hostFirst.total)) * 100),
      cores: availableParallelism(),
      series: this.series,
    };
  }
}
