/**
 * Live logs (issue 26): the logs listings as Server-Sent Events, over a real socket, on the demo
 * network with a live writer (src/demo/live.ts) adding blocks:
 * - a stream's events are the listing's items from its start, in ascending order, then each new
 *   block's logs, each once;
 * - a reconnection with Last-Event-ID at any point loses and repeats nothing;
 * - a slow consumer is closed, the subscriber limit answers 503, a drain ends every stream;
 * - a database outage during a stream: it waits and catches up, with nothing skipped.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { DatabaseUnavailableError, type Db } from '../../../../src/db/db.ts';
import { sql } from '../../../../src/db/sql.ts';
import { writeBlock } from '../../../../src/demo/live.ts';
import { seedDemo } from '../../../../src/demo/seed.ts';
import { drainOf } from '../../../../src/http/server/plugins/drain.ts';
import { appOn, testConfig } from '../../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../../support/database.ts';
import { random } from '../../../../bench/lib/random.ts';
import { RawConnection } from '../../../support/rawHttp.ts';

const API = '/api/v1/contracts';
const NS = 1_000_000_000n;

let database: TestDatabase;
/** The newest record file's end: the demo network's "now". */
let newest: bigint;
let contracts: string[];

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  const [row] = await database.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
  newest = BigInt(row!.end);
  contracts = (await database.db.query<{ id: string }>(sql`select distinct contract_id::text as id from contract_log order by 1`)).map((r) => r.id);
});
after(() => database?.close());

/** Closes an app at once: fetch's keep-alive connections would hold Fastify's close for their 72 s timeout. */
async function closeApp(app: FastifyInstance): Promise<void> {
  app.server.closeAllConnections();
  await app.close();
}

/** An app on `db` listening on a free port, its clock at `now` (ns) and advancing in real time. */
async function serve(db: Db, env: Record<string, string> = {}, now = newest): Promise<{ app: FastifyInstance; base: string }> {
  const offset = now - BigInt(Date.now()) * 1_000_000n;
  const app = appOn(db, { config: testConfig({ HIERO_MIRROR_REST_LIVE_TICKMS: '50', ...env }), clock: () => BigInt(Date.now()) * 1_000_000n + offset });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

interface Event {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads events from a stream until `until` says stop (or `ms` pass); then closes the stream. `opened`
 * is called once its answer's head is in: the stream's start is fixed then (its Indexed-Through), and
 * every block written after that comes in its events.
 */
async function events(url: string, until: (events: Event[]) => boolean, headers: Record<string, string> = {}, ms = 15_000, opened = () => {}): Promise<{ status: number; events: Event[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  opened();
  const out: Event[] = [];
  if (res.status !== 200 || !res.body) {
    clearTimeout(timer);
    return { status: res.status, events: [{ event: 'body', data: await res.text() }] };
  }
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += Buffer.from(chunk).toString('utf8');
      // one pass over the chunk (cutting the buffer once per event copied it once per event: a reader
      // of a big backlog fell so far behind that the server closed it as a slow consumer)
      let start = 0;
      let end: number;
      while ((end = buffer.indexOf('\n\n', start)) >= 0) {
        const block = buffer.slice(start, end);
        start = end + 2;
        if (block.startsWith(':')) continue;
        const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
        out.push({ event: fields.event ?? 'message', data: fields.data ?? '', ...(fields.id !== undefined ? { id: fields.id } : {}) });
      }
      buffer = buffer.slice(start);
      if (until(out)) break;
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: res.status, events: out };
}

/** A stream read with events(), and a promise of its opening (a condition to wait for, where a test waited a time). */
function opening(...args: [url: string, until: (events: Event[]) => boolean, headers?: Record<string, string>, ms?: number]) {
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = events(args[0], args[1], args[2] ?? {}, args[3] ?? 15_000, opened);
  return { stream, open: Promise.race([open, stream.then(() => {})]) };
}

/** Every item of the listing from `query` on (ascending), following its next links. */
async function listing(base: string, path: string, query: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let next: string | null = `${path}?${query}&order=asc&limit=100`;
  while (next) {
    const body = (await (await fetch(base + next)).json()) as { logs: unknown[]; links: { next: string | null } };
    items.push(...body.logs);
    next = body.links.next;
  }
  return items;
}

const ts = (ns: bigint) => `${ns / NS}.${(ns % NS).toString().padStart(9, '0')}`;

test('a stream is the listing from its start in ascending order, then every new block\'s logs once; Last-Event-ID resumes anywhere', async () => {
  const { app, base } = await serve(database.db);
  try {
    const next = random(26);
    const topics = ['', 'topic0=0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'topic0=0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1'];
    for (let i = 0; i < 8; i++) {
      const start = newest - BigInt(Math.floor(next() * 3600)) * NS;
      const topic = topics[i % topics.length]!;
      const path = i % 2 === 0 ? `${API}/results/logs` : `${API}/${contracts[Math.floor(next() * contracts.length)]}/results/logs`;
      const query = [topic, `timestamp=gte:${ts(start)}`].filter(Boolean).join('&');
      const expected = (await listing(base, path, `${query}&timestamp=lte:${ts(newest)}`)).map((item) => JSON.stringify(item));
      const stream = await events(`${base}${path}?${query}`, (e) => e.length >= expected.length, {}, 20_000);
      assert.equal(stream.status, 200);
      assert.deepEqual(stream.events.slice(0, expected.length).map((e) => e.data), expected, `${path}?${query}`);
      assert.ok(stream.events.every((e) => e.event === 'log'));
      // resume after a random event: the rest, nothing lost, nothing repeated
      if (expected.length > 1) {
        const k = Math.floor(next() * (expected.length - 1));
        const id = stream.events[k]!.id!;
        const resumed = await events(`${base}${path}?${query}`, (e) => e.length >= expected.length - k - 1, { 'last-event-id': id }, 20_000);
        assert.deepEqual(resumed.events.slice(0, expected.length - k - 1).map((e) => e.data), expected.slice(k + 1), `resumed after ${id}`);
        const byQuery = await events(`${base}${path}?${query}&lastEventId=${id}`, (e) => e.length >= 1);
        assert.equal(byQuery.events[0]?.data, expected[k + 1]);
      }
    }
    // live: blocks written while a stream is open arrive once each, in order, as the listing has them
    const { stream: collected, open } = opening(`${base}${API}/results/logs`, (e) => e.length >= 12, {}, 30_000);
    await open;
    let end = newest;
    for (let b = 0; b < 8; b++) {
      end += 2n * NS;
      await writeBlock(database.db, end);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const live = await collected;
    const written = await listing(base, `${API}/results/logs`, `timestamp=gt:${ts(newest)}&timestamp=lte:${ts(end)}`);
    assert.ok(live.events.length >= 12, `${live.events.length} live events`);
    assert.deepEqual(live.events.map((e) => e.data), written.slice(0, live.events.length).map((item) => JSON.stringify(item)));
    assert.equal(new Set(live.events.map((e) => e.id)).size, live.events.length, 'no event twice');
    newest = end;
  } finally {
    await closeApp(app);
  }
});

test('requests a stream cannot take are answered 400; without the Accept header nothing changes', async () => {
  const { app, base } = await serve(database.db);
  try {
    for (const query of ['timestamp=lte:1', 'timestamp=gte:1&timestamp=gte:2', 'order=desc', 'index=1', 'limit=5', `timestamp=gte:${ts(newest - 8n * 86_400n * NS)}`]) {
      const res = await fetch(`${base}${API}/results/logs?${query}`, { headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 400, query);
      assert.match(await res.text(), /_status/);
    }
    assert.equal((await fetch(`${base}${API}/results/logs`, { headers: { accept: 'text/event-stream', 'last-event-id': 'x' } })).status, 400);
    const plain = await fetch(`${base}${API}/results/logs?limit=1`);
    assert.equal(plain.headers.get('content-type'), 'application/json; charset=utf-8');
  } finally {
    await closeApp(app);
  }
});

test('the subscriber limit answers 503 with Retry-After; a drain ends every stream with a last event', async () => {
  const { app, base } = await serve(database.db, { HIERO_MIRROR_REST_LIVE_MAXSUBSCRIBERS: '1' });
  const { stream: first, open } = opening(`${base}${API}/results/logs`, (e) => e.some((x) => x.event === 'error'), {}, 15_000);
  await open;
  const refused = await fetch(`${base}${API}/results/logs`, { headers: { accept: 'text/event-stream' } });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '5');
  const report = await drainOf(app).drain(5000);
  const ended = await first;
  assert.equal(ended.events[ended.events.length - 1]!.event, 'error');
  assert.match(ended.events[ended.events.length - 1]!.data, /shutting down/);
  assert.equal(report.cut, 0, 'the stream ended by itself within the grace');
  await closeApp(app);
});

test('streams do not count against server.maxConnections: they have their own limit', async () => {
  const { app, base } = await serve(database.db, { HIERO_MIRROR_REST_SERVER_MAXCONNECTIONS: '2', HIERO_MIRROR_REST_LIVE_MAXSUBSCRIBERS: '5' });
  const controller = new AbortController();
  try {
    // three streams on a cap of two connections: each is served
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}${API}/results/logs`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
      assert.equal(res.status, 200, `stream ${i + 1}`);
    }
    // and a page still has its place
    const page = await fetch(`${base}${API}/results/logs?limit=1`, { headers: { connection: 'close' } });
    assert.equal(page.status, 200);
    await page.arrayBuffer();
  } finally {
    controller.abort();
    await closeApp(app);
  }
});

test('a slow consumer of live events is closed once they pile up; a backlog goes at the client\'s pace; the others keep theirs', async () => {
  const db = await openTestDatabase('embedded');
  await seedDemo(db.db, { scale: 0.1 });
  const [row] = await db.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
  let end = BigInt(row!.end);
  const { app, base } = await serve(db.db, { HIERO_MIRROR_REST_STREAMS_MAXBUFFEREDBYTES: '65536' }, end);
  try {
    // a client that never reads, and one that does
    const slow = await RawConnection.open(Number(new URL(base).port));
    slow.socket.pause();
    slow.write(`GET ${API}/results/logs HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`);
    let received = 0;
    const { stream: healthy, open } = opening(`${base}${API}/results/logs`, (e) => ((received = e.length), e.at(-1)?.event === 'error'), {}, 120_000);
    await open;
    const metrics = async () => (await (await fetch(`${base}/metrics`)).text()).match(/live_slow_consumers_closed_total (\d+)/)?.[1];
    // blocks until the kernel's socket buffers and then the limit are full (several MB of events)
    let written = 0;
    for (; written < 3000 && (await metrics()) !== '1'; written++) {
      end += 2n * NS;
      await writeBlock(db.db, end);
    }
    assert.equal(await metrics(), '1', `closed after ${written} blocks`);
    assert.ok(received > 0, 'the client that reads has its events');
    slow.socket.resume();
    await slow.ended(30_000);
    assert.match(slow.rest(), /event: error\ndata: .*Too slow/);
    await drainOf(app).drain(5000);
    const last = (await healthy).events.at(-1)!;
    assert.equal(last.event, 'error');
    assert.match(last.data, /shutting down/, 'the reading client: ended by the shutdown, not as slow');
  } finally {
    await closeApp(app);
    await db.close();
  }
});

test('a database outage during a stream: it waits, then catches up with nothing skipped', async () => {
  let down = false;
  let refused = 0;
  const inner = database.db;
  const flaky: Db = {
    ...inner,
    query: (async (statement: unknown, values?: readonly unknown[]) => {
      if (down) {
        refused++;
        throw new DatabaseUnavailableError(new Error('connection refused'));
      }
      return inner.query(statement as never, values);
    }) as Db['query'],
    session: (work) => inner.session(work),
  };
  const { app, base } = await serve(flaky);
  try {
    const { stream: collected, open } = opening(`${base}${API}/results/logs`, (e) => e.length >= 6, {}, 30_000);
    await open;
    let end = newest;
    down = true;
    for (let b = 0; b < 4; b++) {
      end += 2n * NS;
      await writeBlock(inner, end);
    }
    // down for several of the feed's ticks (50 ms each), each refused
    for (const from = refused; refused - from < 4; ) await new Promise((resolve) => setTimeout(resolve, 5));
    down = false;
    const got = await collected;
    const written = await listing(base, `${API}/results/logs`, `timestamp=gt:${ts(newest)}&timestamp=lte:${ts(end)}`);
    assert.deepEqual(got.events.map((e) => e.data), written.slice(0, got.events.length).map((item) => JSON.stringify(item)));
    newest = end;
  } finally {
    await closeApp(app);
  }
});
