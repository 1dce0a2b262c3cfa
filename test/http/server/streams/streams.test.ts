/**
 * Hostile clients of the streamed answers (issue 44), over real sockets on the demo network:
 * clients that ask for NDJSON or event streams and never read, that come from one address, that
 * lie in Accept, ask HEAD, or resume from ids that never were. Each test names the row of the
 * issue's table it covers.
 */
import assert from 'node:assert/strict';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from '../../../../src/db/sql.ts';
import { writeBlock } from '../../../../src/demo/live.ts';
import { seedDemo } from '../../../../src/demo/seed.ts';
import { appOn, testConfig } from '../../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../../support/database.ts';

const API = '/api/v1/contracts';
const NS = 1_000_000_000n;

let database: TestDatabase;
let newest: bigint;

before(async () => {
  database = await openTestDatabase('embedded');
  // scale 1: 12,500 logs (about 16 MB of NDJSON), more than the kernel's socket buffers take
  await seedDemo(database.db, { scale: 1 });
  const [row] = await database.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
  newest = BigInt(row!.end);
});
after(() => database?.close());

interface Served {
  app: FastifyInstance;
  port: number;
  /** The server's side of every connection, for what it holds. */
  sockets: Socket[];
  metric(name: string): Promise<number>;
}

async function serve(env: Record<string, string> = {}): Promise<Served> {
  const offset = newest - BigInt(Date.now()) * 1_000_000n;
  const app = appOn(database.db, { config: testConfig({ HIERO_MIRROR_REST_LIVE_TICKMS: '50', ...env }), clock: () => BigInt(Date.now()) * 1_000_000n + offset });
  const sockets: Socket[] = [];
  app.server.on('connection', (socket: Socket) => sockets.push(socket));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const metric = async (name: string) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { connection: 'close' } })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
  };
  return { app, port, sockets, metric };
}

async function close({ app }: Served): Promise<void> {
  app.server.closeAllConnections();
  await app.close();
}

/** A client that sends one request, reads the status line, then stops reading; `closed` once the server cut it. */
interface Stalled {
  status: Promise<number>;
  closed: () => boolean;
  socket: Socket;
}

function stalled(port: number, path: string, headers: Record<string, string>, localAddress = '127.0.0.1'): Stalled {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  let closed = false;
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  const status = new Promise<number>((resolve) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0));
    });
    socket.once('close', () => resolve(0));
  });
  const lines = Object.entries({ host: 'x', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`);
  return { status, closed: () => closed || socket.destroyed, socket };
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ts = (ns: bigint) => `${ns / NS}.${(ns % NS).toString().padStart(9, '0')}`;
const NDJSON = { accept: 'application/x-ndjson' };
const EVENTS = { accept: 'text/event-stream' };

test('NDJSON clients that never read: no slot of the limiter, a bounded buffer each, closed after server.stallTimeout (row 1)', async () => {
  // a fixed limit of 8 contract requests in flight: the 8 streams are admitted however slowly their
  // first pages come, and 8 stalled streams holding slots would shed everything else
  const served = await serve({
    HIERO_MIRROR_REST_DB_POOL_MAXCONNECTIONS: '2',
    HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '6',
    HIERO_MIRROR_REST_SERVER_STALLTIMEOUT: '1500',
  });
  const clients: Stalled[] = [];
  try {
    for (let i = 0; i < 8; i++) clients.push(stalled(served.port, `${API}/results/logs`, NDJSON, `127.0.0.${2 + i}`));
    assert.deepEqual(await Promise.all(clients.map((c) => c.status)), Array(8).fill(200));
    // what the process holds for them, looked at until they are closed
    let held = 0;
    const sampler = setInterval(() => (held = Math.max(held, ...served.sockets.map((s) => s.writableLength))), 20);
    try {
      // one after the other: 8 streams holding their slots would leave none for any of them
      const pages: number[] = [];
      for (let i = 0; i < 12; i++) pages.push(await fetch(`http://127.0.0.1:${served.port}${API}/0.0.2001/results?limit=2`).then((r) => r.status));
      assert.deepEqual(pages, Array(12).fill(200), 'the other requests are answered');
      assert.equal(await served.metric('http_requests_in_flight'), 0, 'no stream holds a slot of the limiter');
      // each fills the kernel's buffers (about 4 MB on loopback), then waits for its client, then is cut
      await until(async () => (await served.metric('http_stalled_connections_closed_total')) >= 8, 60_000, 'the stalled connections closed');
    } finally {
      clearInterval(sampler);
    }
    assert.ok(held > 0 && held <= 256 * 1024, `a stalled stream holds at most streams.maxBufferedBytes in its socket (${held})`);
    await until(async () => (await served.metric('streams_reading')) === 0, 3000, 'their places given back');
    assert.equal(await served.metric('streams_open{kind="ndjson"}'), 0);
  } finally {
    for (const c of clients) c.socket.destroy();
    await close(served);
  }
});

test('streams from one client address are limited (429 with Retry-After, connection closed); another address has its own (row 1, row 2)', async () => {
  const served = await serve({ HIERO_MIRROR_REST_STREAMS_MAXPERCLIENT: '2' });
  const clients: Stalled[] = [];
  try {
    clients.push(stalled(served.port, `${API}/results/logs`, NDJSON), stalled(served.port, `${API}/results/logs`, EVENTS));
    assert.deepEqual(await Promise.all(clients.map((c) => c.status)), [200, 200]);
    for (const headers of [NDJSON, EVENTS]) {
      const refused = await fetch(`http://127.0.0.1:${served.port}${API}/results/logs`, { headers });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.equal(refused.headers.get('connection'), 'close');
      assert.match(await refused.text(), /Too many streams from this client: at most 2/);
    }
    const other = stalled(served.port, `${API}/results/logs`, NDJSON, '127.0.0.9');
    clients.push(other);
    assert.equal(await other.status, 200);
    // a page is no stream: never limited here
    assert.equal((await fetch(`http://127.0.0.1:${served.port}${API}/results/logs?limit=1`)).status, 200);
  } finally {
    for (const c of clients) c.socket.destroy();
    await close(served);
  }
});

test('event streams that stop reading in their backlog hold a bounded buffer and are closed; an idle live stream is not (row 2)', async () => {
  const served = await serve({ HIERO_MIRROR_REST_SERVER_STALLTIMEOUT: '1500', HIERO_MIRROR_REST_LIVE_HEARTBEATMS: '200' });
  const start = ts(newest - 4n * 86_400n * NS);
  const backlog = [0, 1, 2].map((i) => stalled(served.port, `${API}/results/logs?timestamp=gte:${start}`, EVENTS, `127.0.0.${20 + i}`));
  const idle = stalled(served.port, `${API}/results/logs`, EVENTS, '127.0.0.30');
  try {
    assert.deepEqual(await Promise.all([...backlog, idle].map((c) => c.status)), [200, 200, 200, 200]);
    await until(() => served.sockets.filter((s) => s.writableLength > 0).length >= 3, 30_000, 'the backlogs waiting for their clients');
    const held = Math.max(...served.sockets.map((s) => s.writableLength));
    assert.ok(held <= 256 * 1024, `a stalled backlog holds at most streams.maxBufferedBytes (${held})`);
    await until(async () => (await served.metric('http_stalled_connections_closed_total')) >= 3, 8000, 'the stalled backlogs closed');
    await until(async () => (await served.metric('streams_reading')) === 0, 3000, 'their reader places given back');
    // the idle stream takes its heartbeats (its kernel buffer has room): it waits nothing, it stays
    assert.equal(idle.socket.destroyed, false);
    assert.equal(await served.metric('streams_open{kind="events"}'), 1);
  } finally {
    for (const c of [...backlog, idle]) c.socket.destroy();
    await close(served);
  }
});

/** Reads a stream's events for `ms`, then closes it. */
async function readEvents(url: string, ms: number, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; ids: string[] }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { ...EVENTS, ...headers }, signal: controller.signal });
  const ids: string[] = [];
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += Buffer.from(chunk).toString('utf8');
      for (const m of text.matchAll(/^id: (\S+)$/gm)) if (!ids.includes(m[1]!)) ids.push(m[1]!);
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  } finally {
    clearTimeout(timer);
  }
  return { status: res.status, headers: res.headers, ids };
}

test('a live stream without Last-Event-ID starts at the newest block, also after the last stream closed; it opens with Indexed-Through (rows 3, item 6)', async () => {
  const db = await openTestDatabase('embedded');
  await seedDemo(db.db, { scale: 0.05 });
  const [row] = await db.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
  let end = BigInt(row!.end);
  const app = appOn(db.db, { config: testConfig({ HIERO_MIRROR_REST_LIVE_TICKMS: '50' }), clock: () => end });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    // a first stream runs the feed, then closes: the feed stops
    const first = await readEvents(`${base}${API}/results/logs`, 300);
    assert.equal(first.status, 200);
    assert.match(first.headers.get('indexed-through') ?? '', /^block=\d+; timestamp=\d+\.\d{9}$/);
    // blocks written while nobody listens are history, not news
    for (let b = 0; b < 5; b++) await writeBlock(db.db, (end += 2n * NS));
    const quiet = end;
    const second = readEvents(`${base}${API}/results/logs`, 1500);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writeBlock(db.db, (end += 2n * NS));
    const { ids, headers } = await second;
    assert.ok(ids.length > 0, 'the new block arrives');
    assert.ok(ids.every((id) => BigInt(id.split('-')[0]!) > quiet), `only logs after the stream opened: ${ids.slice(0, 3)}`);
    assert.match(headers.get('indexed-through') ?? '', new RegExp(`timestamp=${ts(quiet).replace('.', '\\.')}$`));
  } finally {
    app.server.closeAllConnections();
    await app.close();
    await db.close();
  }
});

test('Accept is negotiated: quality values, q=0 and any case; HEAD of a stream answers its headers and ends (rows 5, 6)', async () => {
  const served = await serve();
  const base = `http://127.0.0.1:${served.port}${API}/results/logs`;
  try {
    const typeOf = async (accept: string) => {
      const res = await fetch(`${base}?limit=2`, { headers: { accept } });
      await res.arrayBuffer();
      return res.headers.get('content-type');
    };
    assert.equal(await typeOf('application/json;q=1, application/x-ndjson;q=0.5'), 'application/json; charset=utf-8');
    assert.equal(await typeOf('application/x-ndjson;Q=0'), 'application/json; charset=utf-8');
    assert.equal(await typeOf('text/event-stream;q=0'), 'application/json; charset=utf-8');
    assert.equal(await typeOf('*/*'), 'application/json; charset=utf-8');
    assert.equal(await typeOf('APPLICATION/X-NDJSON'), 'application/x-ndjson');
    // a route without events answers JSON to a client that asks for them
    assert.equal((await fetch(`http://127.0.0.1:${served.port}${API}/0.0.2001`, { headers: EVENTS })).headers.get('content-type'), 'application/json; charset=utf-8');
    for (const headers of [EVENTS, NDJSON]) {
      const head = await fetch(base, { method: 'HEAD', headers });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-type'), headers.accept);
      assert.match(head.headers.get('indexed-through') ?? '', /^block=/);
    }
    assert.equal(await served.metric('streams_open{kind="events"}'), 0, 'HEAD opened no stream');
  } finally {
    await close(served);
  }
});

test('Last-Event-ID after the newest block or beyond int64 is a 400 (row 7)', async () => {
  const served = await serve();
  try {
    for (const id of [`${newest + 60n * NS}-0`, '9999999999999999999-1', '1-99999999999']) {
      const res = await fetch(`http://127.0.0.1:${served.port}${API}/results/logs`, { headers: { ...EVENTS, 'last-event-id': id } });
      assert.equal(res.status, 400, id);
      assert.match(await res.text(), /Invalid Last-Event-ID/);
    }
  } finally {
    await close(served);
  }
});
