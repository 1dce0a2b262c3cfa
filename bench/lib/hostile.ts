/**
 * The pure parts of the hostile-clients bench (bench/scenarios/hostile.ts, issue 44): its options, the hostile
 * requests it sends, what it makes of each hostile connection seen through the kernel's socket table
 * (bench/lib/tcpTable.ts), the mix's numbers alone and under attack (round by round, and their
 * medians), the server's metrics of interest, and the verdict against the targets. Tested in
 * test/bench/hostile.test.ts.
 */
import { type AttackBounds, type AttackConfig, receiveBufferRate } from './attacks.ts';
import { type Fail, numberOptions } from './cli.ts';
import type { OptionsConfig, Values } from './scenario.ts';
import { SERVER_OPTIONS, serverTarget } from './serverOptions.ts';
import { percentile, type UrlStats } from './stats.ts';
import type { TcpSocket } from './tcpTable.ts';
import { CONNECTIONS, DURATION, URL_FILE, WARMUP } from './options.ts';

export const HOSTILE_USAGE = `  --url-file FILE        the bench mix: request paths, one per line                      (required)
  --base URL             server origin, loopback only                  (default http://127.0.0.1:5551)
  --pid N                server process to sample (CPU, RSS; its tree); found from the port if absent
  --start "CMD"          start the server with sh -c CMD, wait until it answers, SIGTERM it at the end
  --start-timeout S      how long to wait for a started server to answer                  (default 60)
  --server-log FILE      output of the started server    (default $TMPDIR/cqs-hostile-server-<pid>.log)
  --connections N        connections of the mix                                            (default 16)
  --duration S           measured seconds of the mix, alone and under attack               (default 20)
  --rounds N             rounds of the mix alone then under attack, each attack with fresh
                         hostile clients; the verdict takes the median ratios              (default 1)
  --warmup S             unmeasured seconds of the mix before it is measured alone          (default 5)
  --timeout S            the mix's request timeout (a timeout counts as an answer this slow) (default 10)
  --ndjson N             hostile NDJSON clients (Accept: application/x-ndjson)              (default 80)
  --events M             hostile event-stream clients, half with a backlog, half live       (default 40)
  --ndjson-url PATH      listing the NDJSON clients ask for (repeatable; they take turns); default:
                         /api/v1/contracts/results/logs from --ndjson-days before the newest log
  --events-url PATH      logs route the event-stream clients ask for (repeatable; they take turns);
                         default: /api/v1/contracts/results/logs and the newest log's contract's logs
  --ndjson-days D        default NDJSON range: from D days before the newest log             (default 7)
  --backlog-hours H      backlog clients start H hours before the newest log, half of them with
                         Last-Event-ID, half with timestamp=gte:                              (default 6)
  --spread               hostile clients from 127.0.0.2..127.0.0.254 (one address each, in turn)
                         instead of all from 127.0.0.1
 One client's attacks (issue 58), from --attacker-address, in the same child process:
  --idle N               connections that send nothing, each reconnecting when closed      (default 0)
  --slowloris N          connections that send a request line, then a header line every
                         --slowloris-every s, never ending the head; reconnecting          (default 0)
  --slowloris-every S    seconds between a slowloris connection's header lines            (default 10)
  --slow-readers N       NDJSON readers (the first --ndjson-url) per --read-rate           (default 0)
  --read-rate B          bytes/s a slow reader reads (repeatable)                (default 1000 and 10)
  --stall-floor B        the server's server.stallMinRate: readers at or above it must not be cut,
                         those below it must be, by the end of the hold                   (default 100)
  --attacker-address A   source address of those attackers   (default 127.0.0.9 on 127.x, else any)
  --reconnect-ms MS      wait before an idle or slowloris place reconnects                 (default 100)
  --max-connects N       idle and slowloris connections opened at most, reconnections included
                                                                                        (default 200000)
  --readiness-ms MS      GET /health/readiness this often while the hostile clients are open, each
                         on a new connection from --probe-address; must answer 200; 0: none (default 250)
  --probe-address A      source address of the readiness probes   (default 127.0.0.3 on 127.x, else any)
  --probe-port N         port of the readiness probes: the server's server.managementPort (default: --base's)
  --settle S             seconds between opening the hostile clients and measuring the mix  (default 5)
  --hold S               seconds the hostile clients stay open (from their opening; ends earlier once
                         the server has closed every one; goes on, at most --max-stall s more, while
                         an open stream has gone 20 s to --max-stall s without progress)   (default 75)
  --after S              seconds of the mix after the hostile clients are gone (RSS at its end), then
                         as many idle seconds (the idle RSS)                               (default 10)
  --probe-ms MS          how often the hostile connections are looked at                  (default 1000)
  --sample-ms MS         CPU/RSS sampling interval                                          (default 500)
  --min-throughput R     bound: the mix's good answers/s under attack over alone            (default 0.9)
  --max-p99-ratio R      bound: the mix's p99 under attack over alone                       (default 1.5)
  --max-rss MB           bound: the server's RSS at any time                                (default 400)
  --max-stall S          bound: a hostile connection is closed within S s of its last progress (default 60)
  --max-rss-change PCT   bound: RSS under the mix after the hostile clients are gone, over before
                         them (percent)                                                    (default 10)
  --json FILE            write every number (per phase, per connection, the RSS series) as JSON`;

export interface HostileOptions {
  urlFile: string;
  base: URL;
  /** The address the clients connect to: the base's host, `localhost` as 127.0.0.1. */
  host: string;
  port: number;
  pid?: number;
  start?: string;
  startTimeout: number;
  serverLog?: string;
  connections: number;
  duration: number;
  rounds: number;
  warmup: number;
  timeout: number;
  ndjson: number;
  events: number;
  ndjsonUrls: string[];
  eventsUrls: string[];
  ndjsonDays: number;
  backlogHours: number;
  spread: boolean;
  attacks: AttackConfig;
  /** What the slow readers are judged by: the server's floor, and the rate the default receive buffer allows. */
  readerBounds: AttackBounds;
  settle: number;
  hold: number;
  after: number;
  probeMs: number;
  sampleMs: number;
  minThroughput: number;
  maxP99Ratio: number;
  maxRss: number;
  maxStall: number;
  maxRssChange: number;
  json?: string;
}

export const HOSTILE_OPTIONS = {
  ...URL_FILE,
  ...SERVER_OPTIONS,
  ...CONNECTIONS,
  ...DURATION,
  rounds: { type: 'string' },
  ...WARMUP,
  timeout: { type: 'string' },
  ndjson: { type: 'string' },
  events: { type: 'string' },
  'ndjson-url': { type: 'string', multiple: true, default: [] },
  'events-url': { type: 'string', multiple: true, default: [] },
  'ndjson-days': { type: 'string' },
  'backlog-hours': { type: 'string' },
  spread: { type: 'boolean', default: false },
  idle: { type: 'string' },
  slowloris: { type: 'string' },
  'slowloris-every': { type: 'string' },
  'slow-readers': { type: 'string' },
  'read-rate': { type: 'string', multiple: true, default: [] },
  'stall-floor': { type: 'string' },
  'attacker-address': { type: 'string' },
  'reconnect-ms': { type: 'string' },
  'max-connects': { type: 'string' },
  'readiness-ms': { type: 'string' },
  'probe-address': { type: 'string' },
  'probe-port': { type: 'string' },
  settle: { type: 'string' },
  hold: { type: 'string' },
  after: { type: 'string' },
  'probe-ms': { type: 'string' },
  'sample-ms': { type: 'string' },
  'min-throughput': { type: 'string' },
  'max-p99-ratio': { type: 'string' },
  'max-rss': { type: 'string' },
  'max-stall': { type: 'string' },
  'max-rss-change': { type: 'string' },
  json: { type: 'string' },
} satisfies OptionsConfig;

/** The options from the values bench/lib/scenario.ts parsed. Usage errors go to `fail`. */
export function parseHostileOptions(values: Values<typeof HOSTILE_OPTIONS>, fail: Fail): HostileOptions {
  const { integerAtLeast, atLeast, positive } = numberOptions(fail);
  if (!values['url-file']) fail('--url-file is required');
  const server = serverTarget(values, fail);
  const { base } = server;
  const host = base.hostname === 'localhost' ? '127.0.0.1' : base.hostname.replace(/^\[|\]$/g, '');
  if (values.spread && !host.startsWith('127.')) fail('--spread needs an IPv4 --base (127.x): the clients take 127.0.0.2..254 as their addresses');
  for (const path of [...values['ndjson-url']!, ...values['events-url']!]) if (!path.startsWith('/')) fail(`a hostile URL must be a request path starting with "/", got ${path}`);
  const loopbackV4 = host.startsWith('127.');
  const address = (name: string, value: string | undefined, fallback: string): string | undefined => {
    if (value === undefined) return loopbackV4 ? fallback : undefined;
    if (!/^127\.\d+\.\d+\.\d+$/.test(value) && value !== '::1') fail(`--${name} must be a loopback address (127.x.y.z or ::1), got ${value}`);
    return value;
  };
  const readRates = values['read-rate']!.map((rate) => positive('read-rate', rate, 0));
  const attacks: AttackConfig = {
    idle: integerAtLeast('idle', values.idle, 0, 0),
    slowloris: integerAtLeast('slowloris', values.slowloris, 0, 0),
    slowlorisEveryMs: 1000 * positive('slowloris-every', values['slowloris-every'], 10),
    slowReaders: integerAtLeast('slow-readers', values['slow-readers'], 0, 0),
    readRates: readRates.length ? [...new Set(readRates)] : [1000, 10],
    // the first NDJSON listing: set once the newest log is known (hostileTargets)
    readerPath: '',
    address: address('attacker-address', values['attacker-address'], '127.0.0.9'),
    reconnectMs: atLeast('reconnect-ms', values['reconnect-ms'], 100),
    maxConnects: integerAtLeast('max-connects', values['max-connects'], 200_000),
    readinessMs: integerAtLeast('readiness-ms', values['readiness-ms'], 250, 0),
    probeAddress: address('probe-address', values['probe-address'], '127.0.0.3'),
    ...(values['probe-port'] === undefined ? {} : { probePort: integerAtLeast('probe-port', values['probe-port'], 0, 1) }),
    probeTimeoutMs: 5000,
  };
  const options: HostileOptions = {
    urlFile: values['url-file']!,
    ...server,
    host,
    port: Number(base.port || 80),
    connections: integerAtLeast('connections', values.connections, 16),
    duration: positive('duration', values.duration, 20),
    rounds: integerAtLeast('rounds', values.rounds, 1),
    warmup: atLeast('warmup', values.warmup, 5),
    timeout: positive('timeout', values.timeout, 10),
    ndjson: integerAtLeast('ndjson', values.ndjson, 80, 0),
    events: integerAtLeast('events', values.events, 40, 0),
    ndjsonUrls: values['ndjson-url']!,
    eventsUrls: values['events-url']!,
    ndjsonDays: positive('ndjson-days', values['ndjson-days'], 7),
    backlogHours: positive('backlog-hours', values['backlog-hours'], 6),
    spread: values.spread!,
    attacks,
    readerBounds: { stallFloor: positive('stall-floor', values['stall-floor'], 100), keepRate: receiveBufferRate() },
    settle: atLeast('settle', values.settle, 5),
    hold: positive('hold', values.hold, 75),
    after: positive('after', values.after, 10),
    probeMs: integerAtLeast('probe-ms', values['probe-ms'], 1000, 50),
    sampleMs: integerAtLeast('sample-ms', values['sample-ms'], 500, 50),
    minThroughput: atLeast('min-throughput', values['min-throughput'], 0.9),
    maxP99Ratio: positive('max-p99-ratio', values['max-p99-ratio'], 1.5),
    maxRss: positive('max-rss', values['max-rss'], 400),
    maxStall: positive('max-stall', values['max-stall'], 60),
    maxRssChange: atLeast('max-rss-change', values['max-rss-change'], 10),
    ...(values.json !== undefined ? { json: values.json } : {}),
  };
  if (options.ndjson + options.events + attacks.idle + attacks.slowloris + attacks.slowReaders === 0) {
    fail('no hostile client: --ndjson, --events, --idle, --slowloris and --slow-readers are all 0');
  }
  if (options.hold < options.settle + options.duration) {
    fail(`--hold (${options.hold} s) must cover --settle + --duration (${options.settle + options.duration} s): the hostile clients stay open while the mix is measured`);
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// The hostile requests

export type HostileKind = 'ndjson' | 'events-live' | 'events-backlog';
export const HOSTILE_KINDS: readonly HostileKind[] = ['ndjson', 'events-live', 'events-backlog'];

export interface HostileSpec {
  kind: HostileKind;
  path: string;
  /** Headers besides Host. */
  headers: Array<[string, string]>;
  /** The client's source address (undefined: the kernel's choice). */
  localAddress: string | undefined;
}

/** Client `i`'s source address: with `spread` 127.0.0.2..127.0.0.254 in turn, else 127.0.0.1 (IPv4 servers). */
export function sourceAddress(i: number, spread: boolean, host: string): string | undefined {
  if (spread) return `127.0.0.${2 + (i % 253)}`;
  return host.startsWith('127.') ? '127.0.0.1' : undefined;
}

/** `seconds.nanos` (the API's timestamps) as ns since the epoch. */
export function parseSecondsNanos(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (!m) throw new Error(`not a seconds.nanos timestamp: ${text}`);
  return BigInt(m[1]!) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** ns since the epoch as `seconds.nanos`, nine digits after the point. */
export function formatSecondsNanos(ns: bigint): string {
  return `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

export interface NewestLog {
  /** `seconds.nanos` */
  timestamp: string;
  /** `shard.realm.num` */
  contractId: string;
}

export interface HostileTargets {
  ndjsonUrls: string[];
  liveUrls: string[];
  backlogUrls: string[];
  /** Where the backlog clients start: `seconds.nanos` and the Last-Event-ID of that position. */
  backlogStart: string;
  lastEventId: string;
}

/**
 * The URLs of the hostile clients: the given ones, else the logs listings around the newest log
 * (`newest`): NDJSON over the `ndjsonDays` before it, live streams of every contract and of the newest
 * log's contract, backlogs from `backlogHours` before it.
 */
export function hostileTargets(newest: NewestLog, o: Pick<HostileOptions, 'ndjsonUrls' | 'eventsUrls' | 'ndjsonDays' | 'backlogHours'>): HostileTargets {
  const ns = parseSecondsNanos(newest.timestamp);
  const from = formatSecondsNanos(ns - BigInt(Math.round(o.ndjsonDays * 24 * 3600 * 1000)) * 1_000_000n);
  const startNs = ns - BigInt(Math.round(o.backlogHours * 3600 * 1000)) * 1_000_000n;
  const backlogStart = formatSecondsNanos(startNs);
  const network = '/api/v1/contracts/results/logs';
  const liveUrls = o.eventsUrls.length ? o.eventsUrls : [network, `/api/v1/contracts/${newest.contractId}/results/logs`];
  return {
    ndjsonUrls: o.ndjsonUrls.length ? o.ndjsonUrls : [`${network}?timestamp=gte:${from}`],
    liveUrls,
    backlogUrls: o.eventsUrls.length ? o.eventsUrls : [network],
    backlogStart,
    // an event id is `<consensus_timestamp>-<index>`: every log after that position
    lastEventId: `${startNs}-0`,
  };
}

const withQuery = (path: string, pair: string) => `${path}${path.includes('?') ? '&' : '?'}${pair}`;

/**
 * The hostile clients: `ndjson` NDJSON listings, then `events` event streams, the first half (rounded
 * up) with a backlog (alternately by Last-Event-ID and by `timestamp=gte:`), the rest live; each kind
 * takes its URLs in turn; source addresses by client number.
 */
export function hostileSpecs(targets: HostileTargets, o: Pick<HostileOptions, 'ndjson' | 'events' | 'spread' | 'host'>): HostileSpec[] {
  const specs: HostileSpec[] = [];
  const at = (list: string[], i: number) => list[i % list.length]!;
  for (let i = 0; i < o.ndjson; i++) {
    specs.push({ kind: 'ndjson', path: at(targets.ndjsonUrls, i), headers: [['Accept', 'application/x-ndjson']], localAddress: undefined });
  }
  const backlog = Math.ceil(o.events / 2);
  for (let i = 0; i < o.events; i++) {
    const headers: Array<[string, string]> = [['Accept', 'text/event-stream']];
    if (i < backlog) {
      const path = at(targets.backlogUrls, Math.floor(i / 2));
      if (i % 2 === 0) specs.push({ kind: 'events-backlog', path, headers: [...headers, ['Last-Event-ID', targets.lastEventId]], localAddress: undefined });
      else specs.push({ kind: 'events-backlog', path: withQuery(path, `timestamp=gte:${targets.backlogStart}`), headers, localAddress: undefined });
    } else {
      specs.push({ kind: 'events-live', path: at(targets.liveUrls, i - backlog), headers, localAddress: undefined });
    }
  }
  return specs.map((spec, i) => ({ ...spec, localAddress: sourceAddress(i, o.spread, o.host) }));
}

/** The bytes of a hostile request. */
export function hostileRequest(spec: HostileSpec, hostHeader: string): Buffer {
  const lines = [`GET ${spec.path} HTTP/1.1`, `Host: ${hostHeader}`, 'User-Agent: cqs-bench-hostile', ...spec.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

// ---------------------------------------------------------------------------------------------
// What the server answered, and what became of each connection

export interface AnswerHead {
  status: number;
  statusLine: string;
  /** Lower-cased names; present when the header block ended within the bytes read. */
  headers?: Record<string, string>;
  /** The whole answer's length in bytes where a Content-Length gives it (not for streams). */
  length?: number;
}

/** The status line (and the headers, where they ended) at the start of `bytes`; undefined before its line ends. */
export function parseAnswerHead(bytes: Buffer): AnswerHead | undefined {
  const lineEnd = bytes.indexOf('\r\n');
  if (lineEnd < 0) return undefined;
  const statusLine = bytes.toString('latin1', 0, lineEnd);
  const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { status, statusLine };
  const headers: Record<string, string> = {};
  for (const line of bytes.toString('latin1', lineEnd + 2, end).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const contentLength = headers['content-length'];
  const chunked = /chunked/i.test(headers['transfer-encoding'] ?? '');
  return { status, statusLine, headers, ...(contentLength !== undefined && !chunked ? { length: end + 4 + Number(contentLength) } : {}) };
}

/** One hostile connection as the bench follows it; times in ms on one clock (performance.now()). */
export interface Track {
  id: number;
  kind: HostileKind;
  path: string;
  localAddress: string | undefined;
  openedAt: number;
  /** The client's end, `a.b.c.d:port`, once connected. */
  client?: string;
  /** The server's end as the client sees it. */
  server: string;
  connectError?: string;
  head?: AnswerHead;
  /** ms from opening to the status line. */
  headAfterMs?: number;
  /** Bytes the client process read (the status line's read). */
  readBytes: number;
  /** Bytes that reached the client: read, and waiting in its receive queue. */
  received: number;
  /** When `received` last grew (the server's writes made progress); the opening at first. */
  lastProgressAt: number;
  /** When the server's end was first seen closed. */
  closedAt?: number;
  closedHow?: string;
  /** The server's send queue for this connection, last seen while it was open (bytes the kernel holds). */
  serverTxQueue: number;
  /** The client's receive queue, last seen. */
  clientRxQueue: number;
  /** A socket error the client saw. */
  error?: string;
  /** The bench closed it itself (the end of the hold): no more observation. */
  released: boolean;
}

export function newTrack(id: number, spec: HostileSpec, server: string, now: number): Track {
  return { id, kind: spec.kind, path: spec.path, localAddress: spec.localAddress, openedAt: now, server, readBytes: 0, received: 0, lastProgressAt: now, serverTxQueue: 0, clientRxQueue: 0, released: false };
}

/** Sockets by `local>remote`. */
export function socketIndex(sockets: readonly TcpSocket[]): Map<string, TcpSocket> {
  return new Map(sockets.map((s) => [`${s.local}>${s.remote}`, s]));
}

/**
 * One look at the connection in the kernel's table, at `now`: progress is the client's received
 * bytes growing (read, or queued unread in its receive queue); the server closed the connection
 * when its end is no longer ESTABLISHED (FIN_WAIT1 as soon as the server process closes it, even
 * while its unsent bytes keep the FIN queued) or is gone (reset), or the client's end left
 * ESTABLISHED (CLOSE_WAIT: the server's FIN came). An ESTABLISHED server end that no process holds
 * (inode 0) is still in the listener's accept queue: open, the server has not taken it yet.
 */
export function observe(track: Track, index: Map<string, TcpSocket>, now: number): void {
  if (track.client === undefined || track.closedAt !== undefined || track.released) return;
  const clientEnd = index.get(`${track.client}>${track.server}`);
  const serverEnd = index.get(`${track.server}>${track.client}`);
  if (clientEnd) track.clientRxQueue = clientEnd.rxQueue;
  const received = track.readBytes + (clientEnd?.rxQueue ?? 0);
  if (received > track.received) {
    track.received = received;
    track.lastProgressAt = now;
  }
  // (an ESTABLISHED end without an inode is one the server has not accepted yet: open, not answered)
  const serverOpen = serverEnd !== undefined && serverEnd.state === 'ESTABLISHED';
  const clientOpen = clientEnd !== undefined && clientEnd.state === 'ESTABLISHED';
  if (serverOpen && clientOpen) {
    track.serverTxQueue = serverEnd.txQueue;
    return;
  }
  track.closedAt = now;
  const server = serverEnd ? `${serverEnd.state}${serverEnd.inode === 0 ? ' (no process holds it)' : ''}` : 'gone';
  track.closedHow = `server end ${server}; client end ${clientEnd ? clientEnd.state : 'gone'}`;
}

/** A complete answer the client got (it had a Content-Length): after it the connection is an idle keep-alive one. */
export function answeredWhole(track: Track): boolean {
  return track.head?.length !== undefined && track.received >= track.head.length;
}

export type Fate =
  /** The server closed it, `afterS` seconds after the last progress. */
  | { fate: 'closed'; afterS: number }
  /** Still open at the end, last progress `stalledS` seconds before. */
  | { fate: 'open'; stalledS: number }
  /** The whole answer came (a refusal, a 400): not a stalled answer; closed or idle keep-alive after it. */
  | { fate: 'answered'; closedAfterS?: number }
  | { fate: 'no connection'; error: string };

/** What became of a connection, judged at `end` (ms, the end of the hold). */
export function fateOf(track: Track, end: number): Fate {
  if (track.connectError !== undefined) return { fate: 'no connection', error: track.connectError };
  const s = (ms: number) => Math.round(ms / 100) / 10;
  if (answeredWhole(track)) return track.closedAt === undefined ? { fate: 'answered' } : { fate: 'answered', closedAfterS: s(track.closedAt - track.lastProgressAt) };
  if (track.closedAt !== undefined) return { fate: 'closed', afterS: s(track.closedAt - track.lastProgressAt) };
  return { fate: 'open', stalledS: s(end - track.lastProgressAt) };
}

/**
 * Within the bound: closed within `maxStallS` of the last progress, or open and progressing within it.
 * Whole answers are not judged (nothing was left to write), nor connections that never were (counted
 * on their own).
 */
export function fateOk(fate: Fate, maxStallS: number): boolean {
  switch (fate.fate) {
    case 'closed':
      return fate.afterS <= maxStallS;
    case 'open':
      return fate.stalledS <= maxStallS;
    case 'answered':
    case 'no connection':
      return true;
  }
}

/** Seconds without progress below which an open stream counts as progressing (a live stream's heartbeat is every 15 s). */
export const PROGRESSING_S = 20;

/**
 * The open streams not judged yet at `now`: without progress for between PROGRESSING_S and
 * `maxStallS` seconds, they may still be closed in time or become late. The hold waits for them.
 */
export function awaitingJudgement(tracks: readonly Track[], now: number, maxStallS: number): number {
  return tracks.filter((t) => {
    const fate = fateOf(t, now);
    return fate.fate === 'open' && fate.stalledS >= PROGRESSING_S && fate.stalledS <= maxStallS;
  }).length;
}

/** How the server answered: the status code, `no answer` or `no connection`. */
export function answerLabel(track: Track): string {
  if (track.connectError !== undefined) return `no connection (${track.connectError})`;
  if (track.head === undefined) return 'no answer';
  return Number.isFinite(track.head.status) ? String(track.head.status) : `unparsable: ${JSON.stringify(track.head.statusLine.slice(0, 40))}`;
}

export interface KindSummary {
  kind: HostileKind;
  clients: number;
  /** Clients by answer (status code), e.g. {"200": 74, "503": 6}. */
  answers: Record<string, number>;
  /** Of the answers with a Retry-After header. */
  retryAfter: number;
  /** ms from opening to the status line: median and max. */
  headMs: { p50: number; max: number };
  /** Streams (not whole answers) the server closed, and the most seconds after their last progress. */
  closed: number;
  closedAfterMaxS: number;
  /** Streams still open at the end, and the longest time without progress among them. */
  open: number;
  openStalledMaxS: number;
  /** Whole answers (refusals), and how many of their connections the server closed. */
  answered: number;
  answeredClosed: number;
  /** Connections outside the bound (--max-stall). */
  late: number;
  /** Clients that could not connect. */
  noConnection: number;
  /** Bytes that reached the clients, and the server's send queues (kernel memory) last seen. */
  receivedBytes: number;
  serverQueuedBytes: number;
}

/** Per kind, each connection judged at `end` (ms), or at its own end (its round's end of hold). */
export function summarizeKind(kind: HostileKind, tracks: readonly Track[], end: number | ((track: Track) => number), maxStallS: number): KindSummary {
  const mine = tracks.filter((t) => t.kind === kind);
  const answers: Record<string, number> = {};
  for (const t of mine) answers[answerLabel(t)] = (answers[answerLabel(t)] ?? 0) + 1;
  const fates = mine.map((t) => fateOf(t, typeof end === 'number' ? end : end(t)));
  const closed = fates.flatMap((f) => (f.fate === 'closed' ? [f.afterS] : []));
  const open = fates.flatMap((f) => (f.fate === 'open' ? [f.stalledS] : []));
  const answered = fates.filter((f) => f.fate === 'answered');
  const headMs = Float64Array.from(mine.flatMap((t) => (t.headAfterMs === undefined ? [] : [t.headAfterMs]))).sort();
  return {
    kind,
    clients: mine.length,
    answers: Object.fromEntries(Object.entries(answers).sort()),
    retryAfter: mine.filter((t) => t.head?.headers?.['retry-after'] !== undefined).length,
    headMs: { p50: percentile(headMs, 50), max: headMs.length ? headMs[headMs.length - 1]! : NaN },
    closed: closed.length,
    closedAfterMaxS: closed.length ? Math.max(...closed) : NaN,
    open: open.length,
    openStalledMaxS: open.length ? Math.max(...open) : NaN,
    answered: answered.length,
    answeredClosed: answered.filter((f) => f.fate === 'answered' && f.closedAfterS !== undefined).length,
    late: fates.filter((f) => !fateOk(f, maxStallS)).length,
    noConnection: fates.filter((f) => f.fate === 'no connection').length,
    receivedBytes: mine.reduce((n, t) => n + t.received, 0),
    serverQueuedBytes: mine.reduce((n, t) => n + (t.closedAt === undefined ? t.serverTxQueue : 0), 0),
  };
}

// ---------------------------------------------------------------------------------------------
// The mix

export interface MixNumbers {
  seconds: number;
  /** Answers of any status. */
  answers: number;
  /** Answers with their URL's pre-flight status. */
  good: number;
  answersPerS: number;
  goodPerS: number;
  p50: number;
  /** Over every answer, and every timeout counted as an answer taking the timeout. */
  p99: number;
  max: number;
  statuses: Record<string, number>;
  timeouts: number;
  /** Connection errors other than timeouts. */
  errors: number;
}

/** The mix's numbers from its per-URL stats; `expected[i]` is URL i's pre-flight status. */
export function mixNumbers(
  load: { seconds: number; perUrl: readonly UrlStats[]; errors: number; timeouts: number },
  expected: readonly (number | null)[],
  timeoutMs: number,
): MixNumbers {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let good = 0;
  load.perUrl.forEach((u, i) => {
    latencies.push(...u.latencies);
    for (const [code, n] of u.statuses) {
      statuses.set(code, (statuses.get(code) ?? 0) + n);
      if (code === expected[i]) good += n;
    }
  });
  const answers = latencies.length;
  for (let i = 0; i < load.timeouts; i++) latencies.push(timeoutMs);
  const sorted = Float64Array.from(latencies).sort();
  const seconds = load.seconds > 0 ? load.seconds : NaN;
  return {
    seconds: load.seconds,
    answers,
    good,
    answersPerS: answers / seconds,
    goodPerS: good / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
    timeouts: load.timeouts,
    errors: Math.max(0, load.errors - load.timeouts),
  };
}

// ---------------------------------------------------------------------------------------------
// The server's metrics

/** The metric families bench/scenarios/hostile.ts reports (those a build has; the stall and stream ones are new in issue 44). */
export const WATCHED_METRICS = [
  'http_requests_shed_total',
  'http_stalled_connections_closed_total',
  'streams_open',
  'streams_refused_total',
  'streams_reading',
  'live_slow_consumers_closed_total',
  'http_requests_in_flight',
  'http_concurrency_limit',
] as const;

/** The families whose absence is worth a word (issue 44 adds them). */
export const EXPECTED_METRICS = ['http_requests_shed_total', 'http_stalled_connections_closed_total', 'streams_open'] as const;

/** The samples of the watched families in a /metrics text, by `name{labels}`, in the text's order. */
export function watchedMetrics(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const key = line.slice(0, space);
    const name = key.replace(/\{.*$/, '');
    if ((WATCHED_METRICS as readonly string[]).includes(name)) found.set(key, Number(line.slice(space + 1)));
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The verdict

/** One round: the mix alone, then under attack. */
export interface MixRound {
  alone: MixNumbers;
  attack: MixNumbers;
}

/** The median; NaN when a value is NaN (a ratio over nothing). */
export function median(values: readonly number[]): number {
  if (values.length === 0 || values.some(Number.isNaN)) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Under attack over alone, per round: good answers per second and p99. */
export function roundRatios(rounds: readonly MixRound[]): Array<{ throughput: number; p99: number }> {
  return rounds.map((r) => ({ throughput: r.attack.goodPerS / r.alone.goodPerS, p99: r.attack.p99 / r.alone.p99 }));
}

export interface Measured {
  rounds: MixRound[];
  /** Peak RSS of the server's tree over the whole run, MB (undefined: not sampled). */
  rssMaxMb?: number;
  /**
   * RSS at the end of the mix alone just before the first hostile clients opened, and at the end of
   * the mix `after` s long once the last ones were gone, MB: both under the same load, as V8 gives
   * memory back after the GCs that load runs (an idle process runs none).
   */
  rssBeforeMb?: number;
  rssAfterMb?: number;
  kinds: KindSummary[];
  /** The server answered liveness and a mix URL with its usual status after it all. */
  recovered: boolean;
}

export interface Verdict {
  /** Medians over the rounds (the one round's ratios with one). */
  throughputRatio: number;
  p99Ratio: number;
  ratios: Array<{ throughput: number; p99: number }>;
  rssChangePercent: number;
  problems: string[];
}

export function verdict(m: Measured, o: Pick<HostileOptions, 'minThroughput' | 'maxP99Ratio' | 'maxRss' | 'maxStall' | 'maxRssChange'>): Verdict {
  const problems: string[] = [];
  const ratios = roundRatios(m.rounds);
  const throughputRatio = median(ratios.map((r) => r.throughput));
  const p99Ratio = median(ratios.map((r) => r.p99));
  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  const times = (x: number) => `${x.toFixed(2)}x`;
  const one = m.rounds.length === 1 ? m.rounds[0]! : undefined;
  const ofRounds = `the median of ${m.rounds.length} rounds`;
  if (!(throughputRatio >= o.minThroughput)) {
    const detail = one ? `${one.attack.goodPerS.toFixed(0)}/s against ${one.alone.goodPerS.toFixed(0)}/s` : `${ofRounds}: ${ratios.map((r) => pct(r.throughput)).join(', ')}`;
    problems.push(`the mix's good answers under attack are ${pct(throughputRatio)} of alone (${detail}; bound ${pct(o.minThroughput)})`);
  }
  if (!(p99Ratio <= o.maxP99Ratio)) {
    const detail = one ? `${one.attack.p99.toFixed(0)} ms against ${one.alone.p99.toFixed(0)} ms` : `${ofRounds}: ${ratios.map((r) => times(r.p99)).join(', ')}`;
    problems.push(`the mix's p99 under attack is ${times(p99Ratio)} alone (${detail}; bound ${o.maxP99Ratio}x)`);
  }
  if (m.rssMaxMb !== undefined && m.rssMaxMb >= o.maxRss) problems.push(`RSS reached ${m.rssMaxMb.toFixed(0)} MB (bound ${o.maxRss} MB)`);
  const rssChangePercent = m.rssBeforeMb !== undefined && m.rssAfterMb !== undefined ? (100 * (m.rssAfterMb - m.rssBeforeMb)) / m.rssBeforeMb : NaN;
  if (rssChangePercent > o.maxRssChange) {
    problems.push(`RSS under the mix after the hostile clients left is ${m.rssAfterMb!.toFixed(0)} MB against ${m.rssBeforeMb!.toFixed(0)} MB before them (${rssChangePercent > 0 ? '+' : ''}${rssChangePercent.toFixed(0)} %; bound ${o.maxRssChange} %)`);
  }
  for (const k of m.kinds) {
    if (k.late > 0) {
      const worst = [k.open ? `${k.open} still open, up to ${k.openStalledMaxS.toFixed(0)} s without progress` : '', k.closed ? `closed up to ${k.closedAfterMaxS.toFixed(0)} s after their last progress` : '']
        .filter(Boolean)
        .join('; ');
      problems.push(`${k.kind}: ${k.late} of ${k.clients} connections not closed within ${o.maxStall} s of their last progress (${worst})`);
    }
    if (k.noConnection > 0) problems.push(`${k.kind}: ${k.noConnection} of ${k.clients} clients could not connect: the attack was not made in full`);
  }
  if (!m.recovered) problems.push('the server did not answer as usual after the hostile clients were gone');
  return { throughputRatio, p99Ratio, ratios, rssChangePercent, problems };
}
