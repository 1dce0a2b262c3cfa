/**
 * The pure logic of the hostile-clients bench (bench/scenarios/hostile.ts, bench/lib/hostile.ts,
 * bench/lib/tcpTable.ts): its options, the kernel's socket table as it reads it, the hostile
 * requests, what it makes of a connection from successive looks at that table, the mix's numbers
 * (round by round) and the verdict against the targets of issue 44; and the child process that
 * holds the hostile clients (bench/lib/hostileWorker.ts) against a small local server.
 */
import assert from 'node:assert/strict';
import { type Server, type Socket, createServer } from 'node:net';
import { test } from 'node:test';
import {
  type HostileOptions,
  awaitingJudgement,
  type KindSummary,
  type MixNumbers,
  type Track,
  fateOf,
  fateOk,
  formatSecondsNanos,
  hostileRequest,
  hostileSpecs,
  hostileTargets,
  median,
  mixNumbers,
  newTrack,
  observe,
  parseAnswerHead,
  parseHostileOptions,
  parseSecondsNanos,
  socketIndex,
  sourceAddress,
  summarizeKind,
  verdict,
  watchedMetrics,
} from '../../bench/lib/hostile.ts';
import { HostileProcess } from '../../bench/lib/hostileClient.ts';
import { parseScenarioArgs } from '../../bench/lib/scenario.ts';
import { findScenario } from '../../bench/scenarios/index.ts';
import { newUrlStats, recordResponse } from '../../bench/lib/stats.ts';
import { type TcpSocket, decodeAddress, parseTcpTable } from '../../bench/lib/tcpTable.ts';

class UsageError extends Error {}
const fail = (message: string): never => {
  throw new UsageError(message);
};
const entry = findScenario('hostile')!;
const scenario = await entry.load();
/** argv through the bench's one parser, then the scenario's own checks; `help` for --help. */
const parse = (...argv: string[]) => {
  const parsed = parseScenarioArgs(entry, scenario, argv, fail);
  return parsed.help ? 'help' : parseHostileOptions(parsed.args.values as Parameters<typeof parseHostileOptions>[0], fail);
};
const options = (...argv: string[]) => parse('--url-file', 'urls.txt', ...argv) as HostileOptions;

test('options: defaults, and the issue\'s attack unless told otherwise', () => {
  const o = options();
  assert.equal(o.base.origin, 'http://127.0.0.1:5551');
  assert.equal(o.host, '127.0.0.1');
  assert.equal(o.port, 5551);
  assert.deepEqual(
    [o.connections, o.duration, o.rounds, o.warmup, o.ndjson, o.events, o.settle, o.hold, o.after, o.probeMs, o.spread],
    [16, 20, 1, 5, 80, 40, 5, 75, 10, 1000, false],
  );
  assert.deepEqual([o.minThroughput, o.maxP99Ratio, o.maxRss, o.maxStall, o.maxRssChange], [0.9, 1.5, 400, 60, 10]);
  // one client's attacks (issue 58): none unless asked; readiness probed from a third address
  assert.deepEqual(o.attacks, {
    idle: 0, slowloris: 0, slowlorisEveryMs: 10_000, slowReaders: 0, readRates: [1000, 10], readerPath: '', address: '127.0.0.9',
    reconnectMs: 100, maxConnects: 200_000, readinessMs: 250, probeAddress: '127.0.0.3', probeTimeoutMs: 5000,
  });
  assert.equal(o.readerBounds.stallFloor, 100);
  const attack = options('--ndjson', '0', '--events', '0', '--idle', '1000', '--slowloris', '1000', '--slowloris-every', '5', '--slow-readers', '4',
    '--read-rate', '50', '--read-rate', '5000', '--attacker-address', '127.0.0.7', '--readiness-ms', '0', '--stall-floor', '200');
  assert.deepEqual(
    [attack.attacks.idle, attack.attacks.slowloris, attack.attacks.slowlorisEveryMs, attack.attacks.slowReaders, attack.attacks.readRates, attack.attacks.address, attack.attacks.readinessMs, attack.readerBounds.stallFloor],
    [1000, 1000, 5000, 4, [50, 5000], '127.0.0.7', 0, 200],
  );
  assert.equal(options('--base', 'http://[::1]:5551').attacks.address, undefined);
  assert.equal(parse('--help'), 'help');
  const given = options('--base', 'http://localhost:5553', '--ndjson', '0', '--events', '3', '--spread', '--ndjson-url', '/a', '--ndjson-url', '/b', '--duration', '12', '--rounds', '3');
  assert.equal(given.host, '127.0.0.1');
  assert.deepEqual([given.port, given.ndjson, given.events, given.spread, given.duration, given.rounds], [5553, 0, 3, true, 12, 3]);
  assert.deepEqual(given.ndjsonUrls, ['/a', '/b']);
});

test('options: usage errors', () => {
  const refused = (pattern: RegExp, ...argv: string[]) => assert.throws(() => parse(...argv), (err: Error) => err instanceof UsageError && pattern.test(err.message));
  refused(/--url-file is required/);
  refused(/loopback/, '--url-file', 'u', '--base', 'http://10.0.0.1:5551');
  refused(/http:\/\//, '--url-file', 'u', '--base', 'https://127.0.0.1:5551');
  refused(/--spread needs an IPv4/, '--url-file', 'u', '--base', 'http://[::1]:5551', '--spread');
  refused(/exclude each other/, '--url-file', 'u', '--pid', '1', '--start', 'x');
  refused(/no hostile client/, '--url-file', 'u', '--ndjson', '0', '--events', '0');
  refused(/--attacker-address must be a loopback address/, '--url-file', 'u', '--attacker-address', '10.0.0.1');
  refused(/--read-rate must be a positive number/, '--url-file', 'u', '--read-rate', '0');
  refused(/--hold \(20 s\) must cover/, '--url-file', 'u', '--hold', '20');
  refused(/--ndjson must be an integer >= 0/, '--url-file', 'u', '--ndjson=-1');
  refused(/--duration must be a positive number/, '--url-file', 'u', '--duration', 'x');
  refused(/--rounds must be an integer >= 1/, '--url-file', 'u', '--rounds', '0');
  refused(/--after must be a positive number/, '--url-file', 'u', '--after', '0');
  refused(/starting with "\/"/, '--url-file', 'u', '--events-url', 'api/v1/contracts/results/logs');
  refused(/Unknown option/, '--url-file', 'u', '--nope');
});

test('the kernel\'s socket table: addresses, states, queues, inodes', () => {
  assert.equal(decodeAddress('0100007F:15B1', true), '127.0.0.1:5553');
  assert.equal(decodeAddress('0700007F:AF3F', true), '127.0.0.7:44863');
  assert.equal(decodeAddress('7F000001:15B1', false), '127.0.0.1:5553');
  assert.equal(decodeAddress('00000000000000000000000001000000:1111', true), '[::1]:4369');
  assert.equal(decodeAddress('0000000000000000FFFF00000200007F:15B1', true), '127.0.0.2:5553');
  assert.equal(decodeAddress('00000000000000000000000000000000:0000', true), '[::]:0');
  assert.equal(decodeAddress('B80D0120000000000000000001000000:0050', true), '[2001:db8::1]:80');
  const table = parseTcpTable(
    [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:15B1 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 49374 1 000000004bfa1d80 100 0 0 10 0',
      '  21: 0100007F:15B1 0700007F:AF3F 04 003A0C01:00000000 04:0000003B 00000000     0        0 0 2 000000002d01c85e 20 4 31 15 -1',
      '  37: 0700007F:AF3F 0100007F:15B1 01 00000000:0001F013 00:00000000 00000000     0        0 49375 1 00000000bf61040a 20 4 0 11 -1',
    ].join('\n'),
    true,
  );
  assert.deepEqual(table, [
    { local: '127.0.0.1:5553', remote: '0.0.0.0:0', state: 'LISTEN', txQueue: 0, rxQueue: 0, inode: 49374 },
    { local: '127.0.0.1:5553', remote: '127.0.0.7:44863', state: 'FIN_WAIT1', txQueue: 0x3a0c01, rxQueue: 0, inode: 0 },
    { local: '127.0.0.7:44863', remote: '127.0.0.1:5553', state: 'ESTABLISHED', txQueue: 0, rxQueue: 0x1f013, inode: 49375 },
  ]);
});

test('hostile requests: the default URLs around the newest log, backlogs and live streams, source addresses', () => {
  assert.equal(parseSecondsNanos('1748649599.975348055'), 1748649599975348055n);
  assert.equal(parseSecondsNanos('1748649599.5'), 1748649599500000000n);
  assert.equal(parseSecondsNanos('1748649599'), 1748649599000000000n);
  assert.equal(formatSecondsNanos(1748649599000000005n), '1748649599.000000005');
  assert.throws(() => parseSecondsNanos('1.2.3'));

  const newest = { timestamp: '1748649599.975348055', contractId: '0.0.3030927' };
  const targets = hostileTargets(newest, { ndjsonUrls: [], eventsUrls: [], ndjsonDays: 7, backlogHours: 6 });
  assert.deepEqual(targets, {
    ndjsonUrls: ['/api/v1/contracts/results/logs?timestamp=gte:1748044799.975348055'],
    liveUrls: ['/api/v1/contracts/results/logs', '/api/v1/contracts/0.0.3030927/results/logs'],
    backlogUrls: ['/api/v1/contracts/results/logs'],
    backlogStart: '1748627999.975348055',
    lastEventId: '1748627999975348055-0',
  });
  const given = hostileTargets(newest, { ndjsonUrls: ['/n'], eventsUrls: ['/e?topic0=0x01'], ndjsonDays: 7, backlogHours: 0.5 });
  assert.deepEqual([given.ndjsonUrls, given.liveUrls, given.backlogUrls, given.backlogStart], [['/n'], ['/e?topic0=0x01'], ['/e?topic0=0x01'], '1748647799.975348055']);

  const specs = hostileSpecs(targets, { ndjson: 2, events: 5, spread: false, host: '127.0.0.1' });
  assert.deepEqual(specs.map((s) => s.kind), ['ndjson', 'ndjson', 'events-backlog', 'events-backlog', 'events-backlog', 'events-live', 'events-live']);
  assert.ok(specs.every((s) => s.localAddress === '127.0.0.1'));
  assert.deepEqual(specs[0]!.headers, [['Accept', 'application/x-ndjson']]);
  // backlogs alternately by Last-Event-ID and by timestamp=gte:, live streams over both logs routes
  assert.deepEqual(specs[2]!.headers, [['Accept', 'text/event-stream'], ['Last-Event-ID', '1748627999975348055-0']]);
  assert.equal(specs[3]!.path, '/api/v1/contracts/results/logs?timestamp=gte:1748627999.975348055');
  assert.deepEqual(specs[3]!.headers, [['Accept', 'text/event-stream']]);
  assert.deepEqual(specs.slice(5).map((s) => s.path), targets.liveUrls);
  assert.equal(hostileSpecs(given, { ndjson: 0, events: 3, spread: false, host: '127.0.0.1' })[1]!.path, '/e?topic0=0x01&timestamp=gte:1748647799.975348055');

  assert.equal(sourceAddress(0, true, '127.0.0.1'), '127.0.0.2');
  assert.equal(sourceAddress(252, true, '127.0.0.1'), '127.0.0.254');
  assert.equal(sourceAddress(253, true, '127.0.0.1'), '127.0.0.2');
  assert.equal(sourceAddress(7, false, '127.0.0.1'), '127.0.0.1');
  assert.equal(sourceAddress(7, false, '::1'), undefined);
  assert.deepEqual(hostileSpecs(targets, { ndjson: 3, events: 0, spread: true, host: '127.0.0.1' }).map((s) => s.localAddress), ['127.0.0.2', '127.0.0.3', '127.0.0.4']);

  assert.equal(
    hostileRequest(specs[2]!, '127.0.0.1:5553').toString('latin1'),
    'GET /api/v1/contracts/results/logs HTTP/1.1\r\nHost: 127.0.0.1:5553\r\nUser-Agent: cqs-bench-hostile\r\nAccept: text/event-stream\r\nLast-Event-ID: 1748627999975348055-0\r\n\r\n',
  );
});

test('the answer\'s head: its status line, and its length where a Content-Length gives it', () => {
  assert.equal(parseAnswerHead(Buffer.from('HTTP/1.1 200 O')), undefined);
  assert.deepEqual(parseAnswerHead(Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n')), { status: 200, statusLine: 'HTTP/1.1 200 OK' });
  const refusal = 'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 60\r\n\r\n';
  assert.deepEqual(parseAnswerHead(Buffer.from(`${refusal}{"_status"`)), {
    status: 503,
    statusLine: 'HTTP/1.1 503 Service Unavailable',
    headers: { 'retry-after': '5', 'content-length': '60' },
    length: refusal.length + 60,
  });
  const stream = parseAnswerHead(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4000\r\n{"a"'))!;
  assert.equal(stream.length, undefined);
  assert.ok(Number.isNaN(parseAnswerHead(Buffer.from('garbage\r\n'))!.status));
});

const SERVER = '127.0.0.1:5553';
const CLIENT = '127.0.0.2:40000';
const sockets = (server: Partial<TcpSocket> | undefined, client: Partial<TcpSocket> | undefined) =>
  socketIndex([
    ...(server ? [{ local: SERVER, remote: CLIENT, state: 'ESTABLISHED', txQueue: 0, rxQueue: 0, inode: 7, ...server }] : []),
    ...(client ? [{ local: CLIENT, remote: SERVER, state: 'ESTABLISHED', txQueue: 0, rxQueue: 0, inode: 8, ...client }] : []),
  ]);

function connected(kind: Track['kind'] = 'ndjson', at = 0): Track {
  const track = newTrack(1, { kind, path: '/p', headers: [], localAddress: '127.0.0.2' }, SERVER, at);
  track.client = CLIENT;
  return track;
}

test('a connection seen through the socket table: progress while its receive queue grows, then a stall, then the server\'s close', () => {
  const track = connected();
  track.readBytes = 1024;
  track.head = parseAnswerHead(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n'));
  observe(track, sockets({ txQueue: 10_000 }, { rxQueue: 50_000 }), 1000);
  assert.deepEqual([track.received, track.lastProgressAt, track.serverTxQueue, track.closedAt], [51_024, 1000, 10_000, undefined]);
  observe(track, sockets({ txQueue: 4_000_000 }, { rxQueue: 127_000 }), 2000);
  // the receive buffer is full: nothing moves from here on
  observe(track, sockets({ txQueue: 4_000_000 }, { rxQueue: 127_000 }), 3000);
  observe(track, sockets({ txQueue: 4_000_000 }, { rxQueue: 127_000 }), 40_000);
  assert.deepEqual([track.received, track.lastProgressAt, track.serverTxQueue], [128_024, 2000, 4_000_000]);
  assert.deepEqual(fateOf(track, 40_000), { fate: 'open', stalledS: 38 });
  assert.equal(fateOk(fateOf(track, 40_000), 60), true);
  assert.equal(fateOk(fateOf(track, 63_000), 60), false);
  // the server closes it: FIN_WAIT1 at once, the FIN itself queued behind the unsent bytes
  observe(track, sockets({ state: 'FIN_WAIT1', inode: 0, txQueue: 4_000_000 }, { rxQueue: 127_000 }), 41_000);
  assert.equal(track.closedAt, 41_000);
  assert.equal(track.closedHow, 'server end FIN_WAIT1 (no process holds it); client end ESTABLISHED');
  assert.deepEqual(fateOf(track, 90_000), { fate: 'closed', afterS: 39 });
  // looks after the close change nothing
  observe(track, sockets(undefined, undefined), 42_000);
  assert.equal(track.closedAt, 41_000);
});

test('a connection the server has not accepted yet is open; a reset or a FIN from the server closes it', () => {
  const waiting = connected();
  observe(waiting, sockets({ inode: 0 }, {}), 5000);
  assert.equal(waiting.closedAt, undefined);
  assert.deepEqual(fateOf(waiting, 65_000), { fate: 'open', stalledS: 65 });

  const reset = connected();
  observe(reset, sockets(undefined, undefined), 5000);
  assert.equal(reset.closedHow, 'server end gone; client end gone');
  const fin = connected();
  observe(fin, sockets({ state: 'FIN_WAIT2' }, { state: 'CLOSE_WAIT', rxQueue: 300 }), 5000);
  assert.deepEqual([fin.closedAt, fin.received, fin.lastProgressAt], [5000, 300, 5000]);
  assert.deepEqual(fateOf(fin, 9000), { fate: 'closed', afterS: 0 });

  const released = connected();
  released.released = true;
  observe(released, sockets(undefined, undefined), 5000);
  assert.equal(released.closedAt, undefined);
});

test('the streams a hold waits for: open and 20 s to the bound without progress', () => {
  const at = (lastProgressAt: number) => Object.assign(connected(), { lastProgressAt });
  const closed = Object.assign(at(0), { closedAt: 10_000 });
  const tracks = [at(0), at(50_000), at(55_000), closed];
  // at 70 s: 70 s (late: judged), 20 s (waited for), 15 s (progressing, a heartbeat's distance)
  assert.equal(awaitingJudgement(tracks, 70_000, 60), 1);
  assert.equal(awaitingJudgement(tracks, 75_000, 60), 2);
  assert.equal(awaitingJudgement(tracks, 112_000, 60), 1);
  assert.equal(awaitingJudgement(tracks, 130_000, 60), 0);
});

test('whole answers are not judged as stalls; per kind: answers, closes, stalls, late ones', () => {
  const refused = connected('ndjson', 0);
  const head = 'HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: 20\r\n\r\n';
  refused.head = parseAnswerHead(Buffer.from(head));
  refused.headAfterMs = 4;
  refused.readBytes = refused.received = head.length + 20;
  assert.deepEqual(fateOf(refused, 100_000), { fate: 'answered' });
  assert.equal(fateOk(fateOf(refused, 100_000), 60), true);

  const stalled = connected('ndjson', 0);
  stalled.head = parseAnswerHead(Buffer.from('HTTP/1.1 200 OK\r\n'));
  stalled.headAfterMs = 30;
  stalled.received = 128_000;
  stalled.lastProgressAt = 1000;
  const closedLate = connected('ndjson', 0);
  closedLate.head = stalled.head;
  closedLate.headAfterMs = 20;
  closedLate.lastProgressAt = 1000;
  closedLate.closedAt = 71_500;
  const noConnection = connected('ndjson', 0);
  noConnection.connectError = 'ECONNREFUSED';
  const live = connected('events-live', 0);

  const summary = summarizeKind('ndjson', [refused, stalled, closedLate, noConnection, live], 80_000, 60);
  assert.deepEqual(summary, {
    kind: 'ndjson',
    clients: 4,
    answers: { '200': 2, '429': 1, 'no connection (ECONNREFUSED)': 1 },
    retryAfter: 1,
    headMs: { p50: 20, max: 30 },
    closed: 1,
    closedAfterMaxS: 70.5,
    open: 1,
    openStalledMaxS: 79,
    answered: 1,
    answeredClosed: 0,
    late: 2,
    noConnection: 1,
    receivedBytes: refused.received + 128_000,
    serverQueuedBytes: 0,
  });
  // each connection judged at its own round's end of hold
  const ends = new Map<Track, number>([[stalled, 50_000]]);
  const perRound = summarizeKind('ndjson', [stalled, closedLate], (t) => ends.get(t) ?? 80_000, 60);
  assert.deepEqual([perRound.open, perRound.openStalledMaxS, perRound.late], [1, 49, 1]);
});

test('the mix\'s numbers: good answers have their pre-flight status; a timeout counts as an answer taking the timeout', () => {
  const a = newUrlStats('/a');
  const b = newUrlStats('/b');
  for (let i = 0; i < 90; i++) recordResponse(a, 200, 10, 100);
  for (let i = 0; i < 5; i++) recordResponse(a, 503, 1, 60);
  for (let i = 0; i < 3; i++) recordResponse(b, 404, 20, 60);
  const m = mixNumbers({ seconds: 10, perUrl: [a, b], errors: 3, timeouts: 2 }, [200, 404], 10_000);
  assert.deepEqual(
    { ...m },
    { seconds: 10, answers: 98, good: 93, answersPerS: 9.8, goodPerS: 9.3, p50: 10, p99: 10_000, max: 10_000, statuses: { '200': 90, '404': 3, '503': 5 }, timeouts: 2, errors: 1 },
  );
  assert.equal(mixNumbers({ seconds: 10, perUrl: [a], errors: 0, timeouts: 0 }, [200], 10_000).p99, 10);
});

test('the metrics of interest, where the build has them', () => {
  const text = [
    '# HELP http_requests_shed_total Requests shed',
    '# TYPE http_requests_shed_total counter',
    'http_requests_shed_total{reason="limit"} 376',
    'http_requests_shed_total{reason="connections"} 0',
    'streams_open{kind="ndjson"} 12',
    'streams_open{kind="events"} 40',
    'http_stalled_connections_closed_total 74',
    'process_resident_memory_bytes 123456',
    'http_requests_shed_totalx 1',
    '',
  ].join('\n');
  assert.deepEqual(
    [...watchedMetrics(text)],
    [
      ['http_requests_shed_total{reason="limit"}', 376],
      ['http_requests_shed_total{reason="connections"}', 0],
      ['streams_open{kind="ndjson"}', 12],
      ['streams_open{kind="events"}', 40],
      ['http_stalled_connections_closed_total', 74],
    ],
  );
});

test('the verdict against the issue\'s targets', () => {
  const mix = (goodPerS: number, p99: number) => ({ goodPerS, p99 }) as MixNumbers;
  const kind = (late: number) => ({ kind: 'ndjson', clients: 80, late, open: late, openStalledMaxS: 74, closed: 0, closedAfterMaxS: NaN, noConnection: 0 }) as KindSummary;
  const bounds = { minThroughput: 0.9, maxP99Ratio: 1.5, maxRss: 400, maxStall: 60, maxRssChange: 10 };
  const pass = verdict({ rounds: [{ alone: mix(500, 100), attack: mix(460, 140) }], rssMaxMb: 300, rssBeforeMb: 130, rssAfterMb: 100, kinds: [kind(0)], recovered: true }, bounds);
  assert.deepEqual(pass.problems, []);
  assert.equal(pass.throughputRatio, 0.92);
  assert.equal(pass.p99Ratio, 1.4);
  assert.deepEqual(pass.ratios, [{ throughput: 0.92, p99: 1.4 }]);
  assert.ok(pass.rssChangePercent < -20); // memory given back is no problem

  const failed = verdict({ rounds: [{ alone: mix(555, 114.5), attack: mix(0, 6491) }], rssMaxMb: 797, rssBeforeMb: 129, rssAfterMb: 406, kinds: [kind(74)], recovered: false }, bounds);
  assert.deepEqual(failed.problems, [
    "the mix's good answers under attack are 0 % of alone (0/s against 555/s; bound 90 %)",
    "the mix's p99 under attack is 56.69x alone (6491 ms against 115 ms; bound 1.5x)",
    'RSS reached 797 MB (bound 400 MB)',
    'RSS under the mix after the hostile clients left is 406 MB against 129 MB before them (+215 %; bound 10 %)',
    'ndjson: 74 of 80 connections not closed within 60 s of their last progress (74 still open, up to 74 s without progress)',
    'the server did not answer as usual after the hostile clients were gone',
  ]);
  // no RSS sampled (no --pid): the memory targets are not judged
  assert.deepEqual(verdict({ rounds: [{ alone: mix(500, 100), attack: mix(500, 100) }], kinds: [], recovered: true }, bounds).problems, []);
});

test('rounds: the verdict takes the median ratios; each round is reported', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([1, NaN, 2])));
  assert.ok(Number.isNaN(median([])));
  const mix = (goodPerS: number, p99: number) => ({ goodPerS, p99 }) as MixNumbers;
  const bounds = { minThroughput: 0.9, maxP99Ratio: 1.5, maxRss: 400, maxStall: 60, maxRssChange: 10 };
  const rounds = [
    { alone: mix(500, 100), attack: mix(400, 200) },
    { alone: mix(500, 100), attack: mix(475, 110) },
    { alone: mix(400, 100), attack: mix(420, 120) },
  ];
  // one bad round of three passes
  const v = verdict({ rounds, kinds: [], recovered: true }, bounds);
  assert.deepEqual(v.ratios.map((r) => r.throughput), [0.8, 0.95, 1.05]);
  assert.equal(v.throughputRatio, 0.95);
  assert.equal(v.p99Ratio, 1.2);
  assert.deepEqual(v.problems, []);
  const bad = verdict({ rounds: rounds.slice(0, 1).concat(rounds.slice(0, 1), rounds.slice(1, 2)), kinds: [], recovered: true }, bounds);
  assert.deepEqual(bad.problems, [
    "the mix's good answers under attack are 80 % of alone (the median of 3 rounds: 80 %, 80 %, 95 %; bound 90 %)",
    "the mix's p99 under attack is 2.00x alone (the median of 3 rounds: 2.00x, 2.00x, 1.10x; bound 1.5x)",
  ]);
});

/** A server that streams chunks to `/stream` until its client stops reading, and answers `/refuse` 503 with a body. */
async function streamingServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.once('data', (request) => {
      if (request.toString('latin1').startsWith('GET /refuse')) {
        socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}');
        return;
      }
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
      const pump = () => {
        while (socket.writable && socket.write(chunk));
      };
      socket.on('drain', pump);
      pump();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, sockets };
}

test('the child process: its clients open, their changes come over IPC on the parent\'s clock, the server\'s close is seen', { skip: process.platform !== 'linux' && 'needs /proc/net/tcp' }, async () => {
  const { server, port, sockets } = await streamingServer();
  const targets = { ndjsonUrls: ['/stream', '/refuse'], liveUrls: ['/stream'], backlogUrls: ['/stream'], backlogStart: '0.0', lastEventId: '0-0' };
  const before = performance.now();
  const clients = await HostileProcess.start({ targets, ndjson: 2, events: 0, spread: false, host: '127.0.0.1', port, hostHeader: `127.0.0.1:${port}`, probeMs: 100 });
  try {
    await clients.open();
    // until the stream has filled the client's receive buffer
    let at = await clients.look();
    for (let i = 0; i < 50 && !(clients.tracks[0]!.received > 65_536 && performance.now() - clients.tracks[0]!.lastProgressAt > 300); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      at = await clients.look();
    }
    const [stream, refused] = clients.tracks;
    assert.equal(clients.tracks.length, 2);
    assert.equal(stream!.head?.status, 200);
    assert.ok(stream!.received > 65_536, `received ${stream!.received}`);
    assert.ok(stream!.serverTxQueue > 0);
    assert.equal(refused!.head?.status, 503);
    assert.equal(refused!.head?.headers?.['retry-after'], '1');
    // times on this process's clock
    assert.ok(stream!.openedAt >= before - 50 && stream!.openedAt <= at, `opened at ${stream!.openedAt}, between ${before} and ${at}`);
    assert.equal(clients.settled(), false);
    assert.equal(fateOf(stream!, at).fate, 'open');
    assert.equal(fateOf(refused!, at).fate, 'answered');

    // the server closes the stream: a reset, its unsent bytes dropped
    for (const socket of sockets) socket.destroy();
    let closedAt: number | undefined;
    for (let i = 0; i < 50 && closedAt === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await clients.look();
      closedAt = clients.tracks[0]!.closedAt;
    }
    assert.ok(closedAt !== undefined && closedAt <= performance.now() + 50);
    assert.equal(clients.settled(), true);
  } finally {
    await clients.close();
    server.close();
  }
  assert.equal(clients.failure, undefined);
  assert.ok(clients.tracks.every((t) => t.released));
});
