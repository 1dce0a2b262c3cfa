/**
 * The pure parts of one client's attacks in the hostile bench (issue 58, item 8; bench/scenarios/hostile.ts,
 * run in its child process by bench/lib/attackClients.ts): idle connections and slowloris ones that
 * reconnect when closed, slow NDJSON readers that read at a given rate, and the readiness probe from
 * a third address. What each connection came to is summed up here, and judged against the issue's
 * targets: readers at or above the server's floor (server.stallMinRate) never cut, readers below it
 * cut within the bound, readiness answered 200 throughout. Tested in test/bench/attacks.test.ts.
 */
import { readFileSync } from 'node:fs';
import { percentile } from './stats.ts';
import type { TcpSocket } from './tcpTable.ts';

/** What the child process is told to do (part of its config, JSON). */
export interface AttackConfig {
  /** Connections that send nothing, reconnecting when closed. */
  idle: number;
  /** Connections that send a request line, then one header line every `slowlorisEveryMs`, reconnecting when closed. */
  slowloris: number;
  slowlorisEveryMs: number;
  /** Slow NDJSON readers per rate of `readRates` (bytes/s). */
  slowReaders: number;
  readRates: number[];
  /** The listing the readers ask for, and the path of the slowloris request line. */
  readerPath: string;
  /** The attackers' source address (undefined: the kernel's choice). */
  address: string | undefined;
  /** ms between a held connection's close and its reconnection. */
  reconnectMs: number;
  /** Connections the idle and slowloris attackers open at most, reconnections included (a bound on the loop). */
  maxConnects: number;
  /** Readiness probes every `readinessMs` (0: none), each on a new connection from `probeAddress`. */
  readinessMs: number;
  probeAddress: string | undefined;
  /** The port the probes go to: the server's management port (server.managementPort); the server's port when absent. */
  probePort?: number;
  /** ms a probe waits for its answer. */
  probeTimeoutMs: number;
}

export const attacking = (a: AttackConfig | undefined): boolean => a !== undefined && (a.idle > 0 || a.slowloris > 0 || a.slowReaders > 0 || a.readinessMs > 0);

// ---------------------------------------------------------------------------------------------
// The bytes the attackers send

/** A slowloris connection's first bytes: the request line and Host, the head left open. */
export function slowlorisStart(path: string, hostHeader: string): Buffer {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nUser-Agent: cqs-bench-slowloris\r\n`, 'latin1');
}

/** Its `n`th header line after those (one per interval: the head never ends). */
export function slowlorisLine(n: number): Buffer {
  return Buffer.from(`X-Slowloris-${n}: ${n}\r\n`, 'latin1');
}

/** A slow reader's request: the listing as NDJSON. */
export function readerRequest(path: string, hostHeader: string): Buffer {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nUser-Agent: cqs-bench-slow-reader\r\nAccept: application/x-ndjson\r\n\r\n`, 'latin1');
}

/** A slow reader's read buffer: a quarter of a second's bytes (1 to 16 KiB). */
export function readChunk(rate: number): number {
  return Math.max(1, Math.min(16_384, Math.round(rate / 4)));
}

/** ms to wait after reading `n` bytes, so that the reads keep to `rate` bytes a second. */
export function readDelayMs(n: number, rate: number): number {
  return (1000 * n) / rate;
}

/** The status of an answer from its first bytes, undefined until its status line came. */
export function statusOf(bytes: Buffer): number | undefined {
  const m = /^HTTP\/\d\.\d (\d{3})/.exec(bytes.toString('latin1', 0, Math.min(bytes.length, 64)));
  return m ? Number(m[1]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// What became of the connections

/** How a connection ended: the server's FIN, a reset, another error, no connection, or still open (`open`) when the bench closed it. */
export type Ending = 'fin' | 'reset' | 'open' | `error ${string}` | `connect ${string}`;

/** The ending of a socket error's code. */
export function endingOf(code: string | undefined, connected: boolean): Ending {
  if (!connected) return `connect ${code ?? 'error'}`;
  return code === 'ECONNRESET' || code === 'EPIPE' ? 'reset' : `error ${code ?? 'unknown'}`;
}

/** One idle or slowloris connection; times in ms on the child's clock. */
export interface HeldConnection {
  kind: 'idle' | 'slowloris';
  openedAt: number;
  endedAt?: number;
  ended?: Ending;
  /** The answer's status, when one came (408, 429, 503...). */
  status?: number;
}

export interface Distribution {
  n: number;
  p50: number;
  max: number;
}

function distribution(values: number[]): Distribution {
  const sorted = Float64Array.from(values).sort();
  return { n: sorted.length, p50: percentile(sorted, 50), max: sorted.length ? sorted[sorted.length - 1]! : NaN };
}

const count = (into: Record<string, number>, key: string) => {
  into[key] = (into[key] ?? 0) + 1;
};
const sortedRecord = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).sort());
const s1 = (ms: number) => Math.round(ms / 100) / 10;

export interface HeldSummary {
  kind: 'idle' | 'slowloris';
  /** Places asked for (the `--idle` / `--slowloris` count). */
  places: number;
  /** Connections opened, reconnections included. */
  connections: number;
  /** By ending (`fin`, `reset`, `open` at the end...). */
  endings: Record<string, number>;
  /** By the status of the answer they got (`none`: closed without an answer, or still open). */
  answers: Record<string, number>;
  /** Seconds from opening to the server's close (FIN or reset), of those it closed. */
  closedAfterS: Distribution;
  /** The same by answer (`none`: closed without one). */
  closedAfterSByAnswer: Record<string, Distribution>;
  /** Open at the end of the hold, and for how long they had been (the longest). */
  openAtEnd: number;
  openLongestS: number;
}

/** The idle or slowloris connections of one kind, at `end` (ms). */
export function summarizeHeld(kind: 'idle' | 'slowloris', places: number, conns: readonly HeldConnection[], end: number): HeldSummary {
  const mine = conns.filter((c) => c.kind === kind);
  const endings: Record<string, number> = {};
  const answers: Record<string, number> = {};
  const closed: number[] = [];
  const closedBy: Record<string, number[]> = {};
  const open: number[] = [];
  for (const c of mine) {
    const ended = c.ended ?? 'open';
    const answer = c.status === undefined ? 'none' : String(c.status);
    count(endings, ended);
    count(answers, answer);
    if (ended === 'fin' || ended === 'reset') {
      const after = s1((c.endedAt ?? end) - c.openedAt);
      closed.push(after);
      (closedBy[answer] ??= []).push(after);
    }
    if (ended === 'open') open.push(s1(end - c.openedAt));
  }
  return {
    kind,
    places,
    connections: mine.length,
    endings: sortedRecord(endings),
    answers: sortedRecord(answers),
    closedAfterS: distribution(closed),
    closedAfterSByAnswer: Object.fromEntries(Object.entries(closedBy).sort().map(([k, v]) => [k, distribution(v)])),
    openAtEnd: open.length,
    openLongestS: open.length ? Math.max(...open) : NaN,
  };
}

/**
 * How the server ended a reader's connection, from the client's end in the kernel's table: a reader
 * still has bytes to read in its receive queue long after a reset (the kernel hands them out before
 * the error), so its socket alone would tell only minutes later. Undefined while ESTABLISHED; `reset`
 * once the end is gone (a reset unhashes it), `fin` in CLOSE_WAIT or any other state.
 */
export function cutOf(clientEnd: TcpSocket | undefined): Ending | undefined {
  if (clientEnd === undefined) return 'reset';
  return clientEnd.state === 'ESTABLISHED' ? undefined : 'fin';
}

/** One slow reader; times in ms on the child's clock. */
export interface SlowReader {
  rate: number;
  openedAt: number;
  status?: number;
  /** Bytes it read (headers included). */
  bytes: number;
  lastReadAt?: number;
  endedAt?: number;
  ended?: Ending;
}

export interface ReaderSummary {
  /** bytes/s */
  rate: number;
  readers: number;
  answers: Record<string, number>;
  /** Answered other than 200 (a refusal): not counted below. */
  refused: number;
  /** Those the server cut: reset, or closed (FIN) before the bench did. */
  reset: number;
  closed: number;
  /** Seconds from opening to the cut, of those cut. */
  cutAfterS: Distribution;
  /** Still open at the end of the hold. */
  open: number;
  /** Could not connect, or another error. */
  failed: number;
  /** Bytes read per second of each reader's life, median. */
  readRateP50: number;
  bytes: number;
}

/** The slow readers at one rate, at `end` (ms). */
export function summarizeReaders(rate: number, readers: readonly SlowReader[], end: number): ReaderSummary {
  const mine = readers.filter((r) => r.rate === rate);
  const answers: Record<string, number> = {};
  const cut: number[] = [];
  const rates: number[] = [];
  let reset = 0;
  let closed = 0;
  let open = 0;
  let failed = 0;
  let refused = 0;
  for (const r of mine) {
    count(answers, r.status === undefined ? 'none' : String(r.status));
    if (r.status !== undefined && r.status !== 200) {
      refused++;
      continue;
    }
    const ended = r.ended ?? 'open';
    if (ended === 'reset') reset++;
    else if (ended === 'fin') closed++;
    else if (ended === 'open') open++;
    else failed++;
    if (ended === 'reset' || ended === 'fin') cut.push(s1((r.endedAt ?? end) - r.openedAt));
    const life = ((r.endedAt ?? end) - r.openedAt) / 1000;
    if (life > 0) rates.push(r.bytes / life);
  }
  return {
    rate,
    readers: mine.length,
    answers: sortedRecord(answers),
    refused,
    reset,
    closed,
    cutAfterS: distribution(cut),
    open,
    failed,
    readRateP50: percentile(Float64Array.from(rates).sort(), 50),
    bytes: mine.reduce((n, r) => n + r.bytes, 0),
  };
}

/** One readiness probe: its status or error, and how long it took (ms). */
export interface Probe {
  at: number;
  ms: number;
  status?: number;
  error?: string;
}

export interface ProbeSummary {
  probes: number;
  /** By status, or `error X` / `timeout`. */
  outcomes: Record<string, number>;
  /** Probes not answered 200. */
  bad: number;
  p50: number;
  p99: number;
  max: number;
  /** The first few bad ones: seconds since the attack began, and what came. */
  firstBad: string[];
}

export function summarizeProbes(probes: readonly Probe[], start: number): ProbeSummary {
  const outcomes: Record<string, number> = {};
  const bad: string[] = [];
  // (recorded as they ended: in the order they began here)
  for (const p of [...probes].sort((a, b) => a.at - b.at)) {
    const outcome = p.status !== undefined ? String(p.status) : (p.error ?? 'error');
    count(outcomes, outcome);
    if (p.status !== 200) bad.push(`${s1(p.at - start)} s: ${outcome}`);
  }
  const sorted = Float64Array.from(probes.map((p) => p.ms)).sort();
  return {
    probes: probes.length,
    outcomes: sortedRecord(outcomes),
    bad: bad.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    firstBad: bad.slice(0, 5),
  };
}

/** What the child process reports at the end of a hold. */
export interface AttackReport {
  /** s from the attack's start to the end of the report */
  seconds: number;
  held: HeldSummary[];
  readers: ReaderSummary[];
  readiness?: ProbeSummary;
}

export function attackReport(config: AttackConfig, held: readonly HeldConnection[], readers: readonly SlowReader[], probes: readonly Probe[], start: number, end: number): AttackReport {
  return {
    seconds: s1(end - start),
    held: [
      ...(config.idle > 0 ? [summarizeHeld('idle', config.idle, held, end)] : []),
      ...(config.slowloris > 0 ? [summarizeHeld('slowloris', config.slowloris, held, end)] : []),
    ],
    readers: config.slowReaders > 0 ? config.readRates.map((rate) => summarizeReaders(rate, readers, end)) : [],
    ...(config.readinessMs > 0 ? { readiness: summarizeProbes(probes, start) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The verdict

export interface AttackBounds {
  /** The server's floor (server.stallMinRate), bytes/s: readers below it must be cut. */
  stallFloor: number;
  /**
   * Bytes/s at or above which a reader must not be cut: the floor, or more where the reader's
   * receive buffer says so (receiveBufferRate). Between the two a reader may be cut or not.
   */
  keepRate: number;
}

/** Readers at or above this rate must not be cut. */
export const keptFrom = (bounds: AttackBounds): number => Math.max(bounds.stallFloor, bounds.keepRate);

/**
 * The rate under which a reader with the kernel's default receive buffer may be cut: a Linux
 * receiver that reads slowly acknowledges in steps of about its buffer, and the stall watch judges
 * 1.5 `server.stallTimeout` after a stream's socket stopped showing progress
 * (docs/load-control.md, "Clients that do not read"). Node cannot set a TCP socket's SO_RCVBUF, so
 * the bench's readers have the default: the middle value of net.ipv4.tcp_rmem (0 off Linux).
 */
export function receiveBufferRate(stallTimeoutS = 30): number {
  let buffer = 0;
  try {
    buffer = Number(readFileSync('/proc/sys/net/ipv4/tcp_rmem', 'utf8').trim().split(/\s+/)[1]) || 0;
  } catch {
    buffer = 0;
  }
  return Math.ceil(buffer / (1.5 * stallTimeoutS) / 100) * 100;
}

/** What misses the targets in one report (`round`: its name in the messages, '' for one). */
export function attackProblems(report: AttackReport, bounds: AttackBounds, round = ''): string[] {
  const problems: string[] = [];
  const at = round ? ` (${round})` : '';
  const r = report.readiness;
  if (r !== undefined) {
    if (r.probes === 0) problems.push(`no readiness probe was made${at}`);
    else if (r.bad > 0) problems.push(`readiness answered other than 200 ${r.bad} of ${r.probes} times${at}: ${r.firstBad.join(', ')}`);
  }
  for (const s of report.readers) {
    if (s.refused > 0) problems.push(`${s.refused} of ${s.readers} readers at ${s.rate} B/s got no 200 (${JSON.stringify(s.answers)})${at}: the stall watch was not tried on them`);
    if (s.failed > 0) problems.push(`${s.failed} of ${s.readers} readers at ${s.rate} B/s failed (no connection or an error)${at}`);
    const keep = keptFrom(bounds);
    if (s.rate >= keep && s.reset + s.closed > 0) {
      problems.push(`${s.reset + s.closed} of ${s.readers} readers at ${s.rate} B/s (at or above the ${keep} B/s they must be kept at) were cut, after ${s.cutAfterS.p50} s (median)${at}`);
    }
    if (s.rate < bounds.stallFloor && s.open > 0) {
      problems.push(`${s.open} of ${s.readers} readers at ${s.rate} B/s (below the ${bounds.stallFloor} B/s floor) were still open at the end of the hold${at}`);
    }
  }
  return problems;
}
