/**
 * One client's attacks in the hostile bench (issue 58; bench/lib/attacks.ts, bench/lib/attackClients.ts):
 * the bytes they send, what a connection came to, the summaries and the verdict against the issue's
 * targets; and the attackers themselves against a small local server (idle places reconnecting,
 * slowloris lines, a reader keeping to its rate, the readiness probe), at small counts and short times.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttackConfig,
  type AttackReport,
  type HeldConnection,
  type SlowReader,
  attackProblems,
  receiveBufferRate,
  attackReport,
  attacking,
  cutOf,
  endingOf,
  readChunk,
  readDelayMs,
  readerRequest,
  slowlorisLine,
  slowlorisStart,
  statusOf,
  summarizeHeld,
  summarizeProbes,
  summarizeReaders,
} from '../../bench/lib/attacks.ts';
import { Attacks } from '../../bench/lib/attackClients.ts';

const config = (over: Partial<AttackConfig> = {}): AttackConfig => ({
  idle: 0,
  slowloris: 0,
  slowlorisEveryMs: 10_000,
  slowReaders: 0,
  readRates: [1000, 10],
  readerPath: '/api/v1/contracts/results/logs',
  address: undefined,
  reconnectMs: 100,
  maxConnects: 1000,
  readinessMs: 0,
  probeAddress: undefined,
  probeTimeoutMs: 1000,
  ...over,
});

test('the attackers\' bytes: a slowloris head never ends, a reader asks for NDJSON and keeps to its rate', () => {
  const start = slowlorisStart('/x?a=1', 'h:1').toString('latin1');
  assert.match(start, /^GET \/x\?a=1 HTTP\/1\.1\r\nHost: h:1\r\n/);
  assert.ok(!start.includes('\r\n\r\n'));
  assert.equal(slowlorisLine(3).toString('latin1'), 'X-Slowloris-3: 3\r\n');
  assert.match(readerRequest('/l', 'h:1').toString('latin1'), /^GET \/l HTTP\/1\.1\r\nHost: h:1\r\n.*Accept: application\/x-ndjson\r\n\r\n$/s);
  assert.deepEqual([readChunk(10), readChunk(1000), readChunk(1e9)], [3, 250, 16_384]);
  assert.equal(readDelayMs(250, 1000), 250);
  assert.equal(readDelayMs(3, 10), 300);
  assert.equal(statusOf(Buffer.from('HTTP/1.1 429 Too Many Requests\r\n')), 429);
  assert.equal(statusOf(Buffer.from('HTTP/1.1 2')), undefined);
  assert.deepEqual([endingOf('ECONNRESET', true), endingOf('EPIPE', true), endingOf('ETIMEDOUT', true), endingOf('ECONNREFUSED', false)], ['reset', 'reset', 'error ETIMEDOUT', 'connect ECONNREFUSED']);
  const end = (state: string) => ({ local: '127.0.0.9:40000', remote: '127.0.0.1:5551', state, txQueue: 0, rxQueue: 0, inode: 1 });
  assert.deepEqual([cutOf(end('ESTABLISHED')), cutOf(end('CLOSE_WAIT')), cutOf(undefined)], [undefined, 'fin', 'reset']);
  assert.equal(attacking(undefined), false);
  assert.equal(attacking(config()), false);
  assert.equal(attacking(config({ readinessMs: 250 })), true);
});

test('held connections: reconnections counted, closes timed, the open ones at the end', () => {
  const conns: HeldConnection[] = [
    { kind: 'idle', openedAt: 0, endedAt: 10_000, ended: 'fin' },
    { kind: 'idle', openedAt: 10_100, endedAt: 11_100, ended: 'fin', status: 429 },
    { kind: 'idle', openedAt: 11_200 },
    { kind: 'slowloris', openedAt: 0, endedAt: 10_500, ended: 'fin', status: 408 },
    { kind: 'slowloris', openedAt: 10_600, endedAt: 10_700, ended: 'reset' },
  ];
  const idle = summarizeHeld('idle', 2, conns, 20_000);
  assert.deepEqual(idle, {
    kind: 'idle', places: 2, connections: 3, endings: { fin: 2, open: 1 }, answers: { 429: 1, none: 2 },
    closedAfterS: { n: 2, p50: 1, max: 10 }, closedAfterSByAnswer: { 429: { n: 1, p50: 1, max: 1 }, none: { n: 1, p50: 10, max: 10 } }, openAtEnd: 1, openLongestS: 8.8,
  });
  const loris = summarizeHeld('slowloris', 1, conns, 20_000);
  assert.deepEqual([loris.connections, loris.endings, loris.answers, loris.closedAfterS, loris.openAtEnd], [2, { fin: 1, reset: 1 }, { 408: 1, none: 1 }, { n: 2, p50: 0.1, max: 10.5 }, 0]);
});

test('slow readers per rate: refused ones apart, cut ones timed, their read rate', () => {
  const readers: SlowReader[] = [
    { rate: 1000, openedAt: 0, status: 200, bytes: 60_000 },
    { rate: 1000, openedAt: 0, status: 429, bytes: 200, endedAt: 1000, ended: 'fin' },
    { rate: 10, openedAt: 0, status: 200, bytes: 400, endedAt: 31_000, ended: 'reset' },
    { rate: 10, openedAt: 0, status: 200, bytes: 450, endedAt: 45_000, ended: 'fin' },
    { rate: 10, openedAt: 0, bytes: 0, endedAt: 5, ended: 'connect ECONNREFUSED' },
  ];
  const fast = summarizeReaders(1000, readers, 60_000);
  assert.deepEqual([fast.readers, fast.refused, fast.reset, fast.closed, fast.open, fast.failed, fast.answers], [2, 1, 0, 0, 1, 0, { 200: 1, 429: 1 }]);
  assert.equal(fast.readRateP50, 1000);
  const slow = summarizeReaders(10, readers, 60_000);
  assert.deepEqual([slow.reset, slow.closed, slow.open, slow.failed, slow.cutAfterS], [1, 1, 0, 1, { n: 2, p50: 31, max: 45 }]);
});

test('readiness: every probe counted, the bad ones named with their time; p99', () => {
  const probes = Array.from({ length: 100 }, (_, i) => ({ at: 1000 + i * 250, ms: i + 1, status: 200 }));
  probes[40] = { at: 11_000, ms: 5000, error: 'timeout' } as never;
  probes[41] = { at: 11_250, ms: 3, status: 503 };
  probes.push(probes.splice(40, 1)[0]!);
  const s = summarizeProbes(probes, 1000);
  assert.deepEqual([s.probes, s.outcomes, s.bad, s.firstBad], [100, { 200: 98, 503: 1, timeout: 1 }, 2, ['10 s: timeout', '10.3 s: 503']]);
  assert.deepEqual([s.p50, s.p99, s.max], [51, 100, 5000]);
});

test('the verdict: readers above the floor never cut, below it cut; readiness 200 throughout', () => {
  const c = config({ idle: 1, slowReaders: 1, readinessMs: 250 });
  const good: AttackReport = attackReport(
    c,
    [{ kind: 'idle', openedAt: 0 }],
    [{ rate: 1000, openedAt: 0, status: 200, bytes: 9000 }, { rate: 10, openedAt: 0, status: 200, bytes: 300, endedAt: 30_000, ended: 'reset' }],
    [{ at: 0, ms: 2, status: 200 }],
    0,
    40_000,
  );
  assert.deepEqual(good.held.map((h) => h.kind), ['idle']);
  assert.deepEqual(good.readers.map((r) => r.rate), [1000, 10]);
  assert.deepEqual(attackProblems(good, { stallFloor: 100, keepRate: 0 }), []);
  const bad = attackReport(
    c,
    [],
    [{ rate: 1000, openedAt: 0, status: 200, bytes: 9000, endedAt: 30_000, ended: 'reset' }, { rate: 10, openedAt: 0, status: 200, bytes: 300 }],
    [{ at: 500, ms: 2, status: 503 }],
    0,
    40_000,
  );
  const problems = attackProblems(bad, { stallFloor: 100, keepRate: 0 }, 'round 2');
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0]!, /readiness answered other than 200 1 of 1 times \(round 2\): 0\.5 s: 503/);
  assert.match(problems[1]!, /1 of 1 readers at 1000 B\/s \(at or above the 100 B\/s they must be kept at\) were cut, after 30 s/);
  assert.match(problems[2]!, /1 of 1 readers at 10 B\/s \(below the 100 B\/s floor\) were still open/);
  assert.match(attackProblems(attackReport(c, [], [], [], 0, 1), { stallFloor: 100, keepRate: 0 })[0]!, /no readiness probe/);
  // with the default receive buffer a 1,000 B/s reader may be cut (its acknowledgements move in steps of the buffer)
  assert.equal(attackProblems(bad, { stallFloor: 100, keepRate: 2_900 }).length, 2);
  assert.equal(receiveBufferRate(30), existsSync('/proc/sys/net/ipv4/tcp_rmem') ? Math.ceil(Number(readFileSync('/proc/sys/net/ipv4/tcp_rmem', 'utf8').split(/\s+/)[1]) / 45 / 100) * 100 : 0);
});

test('the attackers against a small server: idle places reconnect, slowloris lines come, a reader keeps to its rate, readiness probed', { timeout: 20_000 }, async () => {
  const heads: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/health/readiness') return response.end('{"status":"ok"}');
    // a stall watch's reset, with megabytes still in the client's receive queue
    if (request.url === '/reset') setTimeout(() => response.socket?.resetAndDestroy(), 300);
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = `${JSON.stringify({ x: 'y'.repeat(80) })}\n`;
    const write = () => {
      while (!response.destroyed && response.write(line));
      if (!response.destroyed) response.once('drain', write);
    };
    write();
  });
  // idle connections: closed by the server after 600 ms, as headersTimeout would
  // (the probes' connections, from 127.0.0.3, are left alone: a busy machine may delay their requests)
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === '127.0.0.3') return;
    const timer = setTimeout(() => socket.end(), 600);
    socket.once('data', (bytes) => {
      clearTimeout(timer);
      heads.push(bytes.toString('latin1'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const attacks = new Attacks(
    config({ idle: 2, slowloris: 1, slowlorisEveryMs: 100, slowReaders: 1, readRates: [2000], reconnectMs: 50, readinessMs: 100, probeAddress: '127.0.0.3', address: '127.0.0.9', readerPath: '/logs' }),
    '127.0.0.1',
    port,
    `127.0.0.1:${port}`,
  );
  const reset = new Attacks(config({ slowReaders: 1, readRates: [100], readerPath: '/reset' }), '127.0.0.1', port, `127.0.0.1:${port}`);
  try {
    await Promise.all([attacks.open(), reset.open()]);
    await sleep(1500);
    const report = attacks.report();
    const idle = report.held.find((h) => h.kind === 'idle')!;
    assert.ok(idle.connections >= 4, JSON.stringify(idle));
    assert.ok((idle.endings.fin ?? 0) >= 2, JSON.stringify(idle));
    const loris = report.held.find((h) => h.kind === 'slowloris')!;
    assert.equal(loris.connections, 1, JSON.stringify(loris));
    const reader = report.readers[0]!;
    assert.deepEqual([reader.readers, reader.answers, reader.open], [1, { 200: 1 }, 1]);
    // at 2,000 B/s for 1.5 s: not the megabytes the server would send at once
    assert.ok(reader.bytes > 1000 && reader.bytes < 5000, String(reader.bytes));
    const r = report.readiness!;
    assert.ok(r.probes >= 5 && r.bad === 0, JSON.stringify(r));
    assert.ok(heads.some((h) => h.startsWith('GET /logs HTTP/1.1\r\n') && h.includes('User-Agent: cqs-bench-slowloris')), heads.join('|'));
    // seen in the kernel's table within a second or so, though the reader has bytes left to read
    const cut = reset.report().readers[0]!;
    assert.deepEqual([cut.reset, cut.open], [1, 0], JSON.stringify(cut));
    assert.ok(cut.cutAfterS.max < 1.5, JSON.stringify(cut));
  } finally {
    attacks.close();
    reset.close();
    server.closeAllConnections();
    server.close();
  }
});
