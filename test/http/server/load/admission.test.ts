import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../../../../src/config/config.ts';
import type { Route } from '../../../../src/http/route.ts';
import type { PoolQueue, WaitObserver } from '../../../../src/db/poolQueue.ts';
import { drainOf } from '../../../../src/http/server/plugins/drain.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { testConfig } from '../../../support/app.ts';
import { fakeDb } from '../../../support/database.ts';
import { RawConnection, type RawResponse, getRequest } from '../../../support/rawHttp.ts';

/**
 * Admission before routing (src/http/server/load/admission.ts): the adaptive limit of contract
 * requests in flight, the shed answer (prepared bytes, no request object, no access line), its
 * metrics and log summary, the pace of shed answers, and the drain.
 */

/** A route whose answers wait until `open()` (the work in flight). */
function gatedRoute() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const route: Route = {
    path: '/api/v1/contracts/:contractId',
    cacheControl: 'public, max-age=1',
    async handler({ params }) {
      await gate;
      return { body: { id: params.contractId } };
    },
  };
  return { route, open: () => release() };
}

interface Served {
  app: FastifyInstance;
  port: number;
  lines: Array<Record<string, unknown>>;
}

/**
 * A pool of 1 connection and 1 request queued beyond it: the adaptive limit starts (and stays) at 2
 * while the database's queue (the fake's, `queue`) reports no wait.
 */
async function serve(route: Route, env: Record<string, string> = {}, queue?: PoolQueue): Promise<Served> {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const raw of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(raw));
      done();
    },
  });
  const config: Config = testConfig({
    HIERO_MIRROR_REST_DB_POOL_MAXCONNECTIONS: '1',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '1',
    HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'true',
    ...env,
  });
  const db = fakeDb();
  const app = buildApp({ config, db: queue ? { ...db, queue } : db, routes: [route], logger: pino({ level: 'info' }, stream) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, lines };
}

async function send(port: number, path: string): Promise<{ client: RawConnection; answer: Promise<RawResponse> }> {
  const client = await RawConnection.open(port);
  client.write(getRequest(path));
  const answer = client.response();
  answer.catch(() => {}); // answers left unread when a test ends and closes the connection
  return { client, answer };
}

const SHED = '{"_status":{"messages":[{"message":"Service unavailable"}]}}';

test('beyond the limit of requests in flight (the pool plus the queue bound at start): 503 at once, before routing, counted, one log line; probes still answer; admitted again after', async () => {
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0' });
  const clients: RawConnection[] = [];
  try {
    const admitted = [await send(served.port, '/api/v1/contracts/1'), await send(served.port, '/api/v1/contracts/2')];
    clients.push(...admitted.map((a) => a.client));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = served.lines.length;
    for (let i = 0; i < 5; i++) {
      const shed = await send(served.port, `/api/v1/contracts/${10 + i}`);
      clients.push(shed.client);
      const answer = await shed.answer;
      assert.equal(answer.status, 503);
      assert.equal(answer.body, SHED);
      assert.equal(answer.headers['retry-after'], '1');
      assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(answer.headers['access-control-allow-origin'], '*');
      assert.equal(answer.headers.vary, 'Accept-Encoding');
      assert.equal(answer.headers['x-request-id'], undefined, 'no request object was made for it');
    }
    const absolute = await send(served.port, 'http://any.host/api/v1/contracts/20');
    clients.push(absolute.client);
    assert.equal((await absolute.answer).status, 503, 'a target in absolute form is judged by its path');
    const probe = await send(served.port, '/health/liveness');
    clients.push(probe.client);
    assert.equal((await probe.answer).status, 200);
    const mine = served.lines.slice(before).filter((l) => l.msg !== 'request' || l.url !== '/health/liveness');
    assert.equal(mine.length, 1, `one line for five shed requests, got ${JSON.stringify(mine)}`);
    assert.equal(mine[0]!.msg, 'overloaded: answering 503 until the load drops');
    assert.deepEqual(mine[0]!.shed, { limit: 1 });
    gated.open();
    for (const { answer } of admitted) assert.equal((await answer).status, 200);
    const again = await send(served.port, '/api/v1/contracts/3');
    clients.push(again.client);
    assert.equal((await again.answer).status, 200, 'admitted once the work in flight is answered');
    const metrics = await send(served.port, '/metrics');
    clients.push(metrics.client);
    const text = (await metrics.answer).body;
    assert.match(text, /http_requests_shed_total\{reason="limit"\} 6/);
    assert.match(text, /http_concurrency_limit 2/);
    assert.match(text, /http_requests_in_flight 0/);
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
});

test('without the adaptive limit, a fixed one: the pool plus server.pressure.maxQueuedRequests requests in flight, then 503 (reason limit)', async () => {
  const gated = gatedRoute();
  const served = await serve(gated.route, {
    HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '2',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0',
  });
  const clients: RawConnection[] = [];
  try {
    // the pool's connection plus 2 queued: three in flight
    const admitted = [];
    for (let i = 1; i <= 3; i++) admitted.push(await send(served.port, `/api/v1/contracts/${i}`));
    clients.push(...admitted.map((a) => a.client));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const shed = await send(served.port, '/api/v1/contracts/4');
    clients.push(shed.client);
    assert.equal((await shed.answer).status, 503);
    gated.open();
    for (const { answer } of admitted) assert.equal((await answer).status, 200);
    const again = await send(served.port, '/api/v1/contracts/5');
    clients.push(again.client);
    assert.equal((await again.answer).status, 200, 'admitted once the work in flight is answered');
    const metrics = await send(served.port, '/metrics');
    clients.push(metrics.client);
    const text = (await metrics.answer).body;
    assert.match(text, /http_requests_shed_total\{reason="limit"\} 1/);
    assert.match(text, /http_concurrency_limit 3/);
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
});

test('the adaptive limit starts at its bound and comes down only while statements keep waiting longer than server.pressure.maxQueueWait (issue 45)', async () => {
  const gated = gatedRoute();
  const observers: WaitObserver[] = [];
  let oldest = 0;
  const queue: PoolQueue = { observeWaits: (o) => void observers.push(o), oldestWaitMs: () => oldest };
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '20', HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEWAIT: '500' }, queue);
  const limitNow = async () => {
    const metrics = await send(served.port, '/metrics');
    const text = (await metrics.answer).body;
    metrics.client.destroy();
    return Number(/^http_concurrency_limit (\d+)/m.exec(text)?.[1]);
  };
  const report = async (waitMs: number, ms: number) => {
    for (const end = performance.now() + ms; performance.now() < end; ) {
      for (const observer of observers) observer(waitMs, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  try {
    assert.equal(await limitNow(), 21, 'the pool plus maxQueuedRequests');
    await report(400, 400);
    assert.equal(await limitNow(), 21, 'waits within maxQueueWait change nothing: a slow database that does not queue is not shed from');
    await report(2000, 800);
    assert.ok((await limitNow()) <= 3, 'every wait of a window above maxQueueWait: the queued part is cut');
    // a database that stopped answering: no statement gets a connection, the oldest waits on
    await report(0, 300);
    const grown = await limitNow();
    assert.ok(grown > 3, `grows back once the waits are short (${grown})`);
    oldest = 5000;
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.ok((await limitNow()) < grown, 'a queue nobody leaves counts as a standing wait');
  } finally {
    gated.open();
    await served.app.close();
  }
});

test('server.pressure.maxQueuedRequests 0 and no adaptive limit: no limit of requests in flight', async () => {
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false', HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '0' });
  const clients: RawConnection[] = [];
  try {
    const sent = [];
    for (let i = 1; i <= 8; i++) sent.push(await send(served.port, `/api/v1/contracts/${i}`));
    clients.push(...sent.map((a) => a.client));
    await new Promise((resolve) => setTimeout(resolve, 50));
    gated.open();
    for (const { answer } of sent) assert.equal((await answer).status, 200);
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
});

/** The limit (the pool's 2 connections) held by two gated requests while `check` asks its own, each on a connection of its own. */
async function whileHeld(check: (statusOf: (request: string) => Promise<number>) => Promise<void>): Promise<void> {
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0' });
  const clients: RawConnection[] = [];
  const statusOf = async (request: string) => {
    const client = await RawConnection.open(served.port);
    clients.push(client);
    client.write(request);
    return (await client.response()).status;
  };
  try {
    for (let i = 0; i < 2; i++) clients.push((await send(served.port, `/api/v1/contracts/${i}`)).client);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await check(statusOf);
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
}

test('other paths and methods are not limited: the docs, unknown paths, POST', () =>
  whileHeld(async (statusOf) => {
    for (const [request, status] of [[getRequest('/api/v1/accounts'), 404], [getRequest('/api/v1/contracts/9', {}, 'POST'), 404]] as const) {
      assert.equal(await statusOf(request), status);
    }
  }));

test('a request that asks for a stream is admitted like any other until it becomes one: no Accept skips the limit (issue 44, row 4)', () =>
  whileHeld(async (statusOf) => {
    for (const accept of ['text/event-stream', 'text/event-stream;q=0', 'TEXT/EVENT-STREAM', 'application/x-ndjson', 'application/json, text/event-stream;q=0.1']) {
      assert.equal(await statusOf(getRequest('/api/v1/contracts/7', { accept })), 503, accept);
    }
  }));

test('shed answers beyond their budget wait for a later tick, at most server.pressure.maxShedDelay; the drain sends the held ones at once with Connection: close', async () => {
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '600' });
  const clients: RawConnection[] = [];
  try {
    for (let i = 0; i < 2; i++) clients.push((await send(served.port, `/api/v1/contracts/${i}`)).client);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // 40 at once: the budget of a tick with nothing admitted is 10; the rest are held, in order
    const started = performance.now();
    const shed = await Promise.all(Array.from({ length: 40 }, (_, i) => send(served.port, `/api/v1/contracts/${100 + i}`)));
    clients.push(...shed.map((s) => s.client));
    const times = await Promise.all(shed.map(async ({ answer }) => ((await answer).status === 503 ? performance.now() - started : NaN)));
    assert.ok(times.every((t) => t >= 0), 'every one answered 503');
    const first = Math.min(...times);
    const atOnce = times.filter((t) => t - first < 50).length;
    const shown = times.map((t) => t.toFixed(0)).join(' ');
    assert.ok(atOnce >= 1 && atOnce <= 25, `about a tick's budget at once, got ${atOnce}: ${shown}`);
    assert.ok(Math.max(...times) - first >= 200, `the rest paced over later ticks: ${shown}`);
    assert.ok(Math.max(...times) <= 900, `none held much beyond 600 ms (${Math.max(...times).toFixed(0)})`);
    // held answers and the drain
    const shedSoFar = async () => {
      const metrics = await send(served.port, '/metrics');
      const text = (await metrics.answer).body;
      metrics.client.destroy();
      return Number(/^http_requests_shed_total\{reason="limit"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await shedSoFar();
    const more = await Promise.all(Array.from({ length: 30 }, (_, i) => send(served.port, `/api/v1/contracts/${200 + i}`)));
    clients.push(...more.map((s) => s.client));
    // the drain only once the server has decided every one of them (answered or held): a request it
    // has not read yet when the drain starts is closed unanswered (a loaded machine took over 20 ms)
    for (const end = performance.now() + 5000; (await shedSoFar()) < before + 30 && performance.now() < end; ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const drained = drainOf(served.app).drain(2000);
    const answers = await Promise.all(more.map((m) => m.answer));
    assert.ok(answers.every((a) => a.status === 503));
    assert.ok(answers.filter((a) => a.headers.connection === 'close').length >= 5, 'the held ones say Connection: close');
    gated.open();
    await drained;
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
});
