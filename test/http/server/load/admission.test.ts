import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../../../../src/config/config.ts';
import type { Route } from '../../../../src/http/route.ts';
import type { PoolQueue, WaitObserver } from '../../../../src/db/poolQueue.ts';
import { type AdmittedNetwork, admission } from '../../../../src/http/server/load/admission.ts';
import { drainOf } from '../../../../src/http/server/plugins/drain.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { testConfig } from '../../../support/app.ts';
import { fakeDb } from '../../../support/database.ts';
import { RawConnection, type RawResponse, getRequest } from '../../../support/rawHttp.ts';

/**
 * Admission before routing (src/http/server/load/admission.ts): the adaptive limit of contract
 * requests in flight, the shed answer (prepared bytes, no request object, no access line), its
 * metrics and log summary, the pace of shed answers, and the drain. Over real sockets the tests wait
 * for the server's metrics to say what they wait for, never for a fixed time; the adaptive limit and
 * the pace run on a fake clock (mock.timers for admission's ticker, its `now` the test's).
 */

/** A route whose answers wait until `open()` (the work in flight); `entered()`: the requests that reached it. */
function gatedRoute() {
  let release: () => void = () => {};
  let entered = 0;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const route: Route = {
    path: '/api/v1/contracts/:contractId',
    cacheControl: 'public, max-age=1',
    async handler({ params }) {
      entered++;
      await gate;
      return { body: { id: params.contractId } };
    },
  };
  return { route, open: () => release(), entered: () => entered };
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

/** A metric's value (its first series) from the server's /metrics. */
async function metricOf(port: number, name: string): Promise<number> {
  const metrics = await send(port, '/metrics');
  const text = (await metrics.answer).body;
  metrics.client.destroy();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? 0);
}

/** Waits (5 s at most) until the metric reaches `value`: the server has taken the requests sent. */
async function untilMetric(port: number, name: string, value: number): Promise<void> {
  for (const end = performance.now() + 5000; (await metricOf(port, name)) < value; ) {
    assert.ok(performance.now() < end, `${name} stayed below ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('beyond the limit of requests in flight (the pool plus the queue bound at start): 503 at once, before routing, counted, one log line; probes still answer; admitted again after', async () => {
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0' });
  const clients: RawConnection[] = [];
  try {
    const admitted = [await send(served.port, '/api/v1/contracts/1'), await send(served.port, '/api/v1/contracts/2')];
    clients.push(...admitted.map((a) => a.client));
    await untilMetric(served.port, 'http_requests_in_flight', 2);
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
    await untilMetric(served.port, 'http_requests_in_flight', 3);
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

/** A response as admission sees it: the status and headers it is written with, and its close. */
class FakeResponse extends EventEmitter {
  statusCode = 200;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  headers: string[] = [];
  writeHead(status: number, headers: string[]) {
    this.statusCode = status;
    this.headers = headers;
    return this;
  }
  end() {
    this.writableEnded = this.writableFinished = true;
    this.emit('close');
    return this;
  }
}

/**
 * admission() of one network (a pool of 1 connection) on a fake clock: its ticker runs on
 * mock.timers and its `now` is the test's; `advance(ms)` moves both in steps of 10 ms.
 */
function onFakeClock(t: TestContext, env: Record<string, string>, oldestWaitMs?: () => number) {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let now = 0;
  const { pressure } = testConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'true', ...env }).server;
  // with oldestWaitMs, the pool has a queue whose statements' waits the test reports (`report`)
  const observers: WaitObserver[] = [];
  const queue: PoolQueue | undefined = oldestWaitMs && { observeWaits: (o) => void observers.push(o), oldestWaitMs };
  const network: AdmittedNetwork = { name: undefined, poolSize: 1, poolWaiting: () => 0, ...(queue ? { queue } : {}) };
  const admit = admission({ pressure, networks: [network], networkOf: () => network, underPressure: () => false, draining: () => false, vary: true, logger: false, now: () => now });
  t.after(() => admit.stop());
  return {
    admit,
    now: () => now,
    advance(ms: number) {
      for (let i = 0; i < ms; i += 10) {
        now += 10;
        t.mock.timers.tick(10);
      }
    },
    /** Statements that waited `waitMs` each, reported every 10 ms for `ms` while the clock moves. */
    report(waitMs: number, ms: number) {
      for (let i = 0; i < ms; i += 10) {
        for (const observer of observers) observer(waitMs, now);
        this.advance(10);
      }
    },
    /** A GET of `path`: shed (answered or held) or admitted. */
    ask(path: string) {
      const response = new FakeResponse();
      const shed = admit.beforeRouting({ url: path, method: 'GET', headers: {} } as IncomingMessage, response as unknown as ServerResponse);
      return { shed, response };
    },
    async metric(name: string) {
      return Number(new RegExp(`^${name} (\\S+)`, 'm').exec(await admit.registry.metrics())?.[1]);
    },
  };
}

test('the adaptive limit starts at its bound and comes down only while statements keep waiting longer than server.pressure.maxQueueWait (issue 45)', async (t) => {
  let oldest = 0;
  const clock = onFakeClock(t, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '20', HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEWAIT: '500' }, () => oldest);
  const limitNow = () => clock.metric('http_concurrency_limit');
  const report = clock.report.bind(clock);
  assert.equal(await limitNow(), 21, 'the pool plus maxQueuedRequests');
  report(400, 400);
  assert.equal(await limitNow(), 21, 'waits within maxQueueWait change nothing: a slow database that does not queue is not shed from');
  report(2000, 800);
  assert.ok((await limitNow()) <= 3, 'every wait of a window above maxQueueWait: the queued part is cut');
  assert.equal(await clock.metric('db_pool_standing_wait_seconds'), 2);
  // a database that stopped answering: no statement gets a connection, the oldest waits on
  report(0, 300);
  const grown = await limitNow();
  assert.ok(grown > 3, `grows back once the waits are short (${grown})`);
  oldest = 5000;
  clock.advance(600);
  assert.ok((await limitNow()) < grown, 'a queue nobody leaves counts as a standing wait');
  assert.equal(await clock.metric('db_pool_standing_wait_seconds'), 5);
});

test('shed answers beyond their budget wait for a later tick, at most server.pressure.maxShedDelay; flush sends the held ones at once with Connection: close', async (t) => {
  // the pool's connection and 1 queued: two in flight, then shed
  const clock = onFakeClock(t, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '1', HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '600' });
  assert.deepEqual([clock.ask('/api/v1/contracts/1').shed, clock.ask('/api/v1/contracts/2').shed], [false, false]);
  // 100 at once: the budget of a tick with nothing admitted is 10; the rest are held, in order
  const shed = Array.from({ length: 100 }, (_, i) => clock.ask(`/api/v1/contracts/${100 + i}`));
  assert.ok(shed.every((s) => s.shed));
  const answered = () => shed.filter((s) => s.response.writableEnded);
  assert.equal(answered().length, 10, "a tick's budget at once");
  assert.equal(await clock.metric('http_shed_answers_held'), 90);
  clock.advance(90);
  assert.equal(answered().length, 10, 'none before the next tick');
  clock.advance(10);
  assert.equal(answered().length, 20, "the next tick's budget, in order");
  assert.deepEqual(shed.slice(0, 20).map((s) => s.response.writableEnded), Array(20).fill(true));
  clock.advance(400);
  assert.equal(answered().length, 60, 'paced over the ticks');
  clock.advance(100);
  assert.equal(answered().length, 100, 'none held beyond maxShedDelay (600 ms)');
  for (const { response } of shed) {
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers.includes('Connection'), false);
  }
  // the budget of that tick is spent: the next ones are held until a flush (the drain) sends them
  const more = Array.from({ length: 30 }, (_, i) => clock.ask(`/api/v1/contracts/${200 + i}`));
  assert.equal(more.filter((s) => s.response.writableEnded).length, 0);
  assert.equal(await clock.metric('http_shed_answers_held'), 30);
  clock.admit.flush();
  assert.ok(more.every((s) => s.response.statusCode === 503 && s.response.headers.join(' ').includes('Connection close')));
  assert.equal(await clock.metric('http_shed_answers_held'), 0);
  assert.equal(await clock.metric('http_requests_shed_total\\{reason="limit"\\}'), 130);
});

test('server.pressure.maxQueuedRequests 0 and no adaptive limit: no limit of requests in flight', async () => {
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false', HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '0' });
  const clients: RawConnection[] = [];
  try {
    const sent = [];
    for (let i = 1; i <= 8; i++) sent.push(await send(served.port, `/api/v1/contracts/${i}`));
    clients.push(...sent.map((a) => a.client));
    // all eight in the route at once: none shed, none waiting for another's answer
    for (const end = performance.now() + 5000; gated.entered() < 8; ) {
      assert.ok(performance.now() < end, `${gated.entered()} of 8 reached the route`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
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
    await untilMetric(served.port, 'http_requests_in_flight', 2);
    await check(statusOf);
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
}

test('a POST of /rpc is counted as the contract routes are: shed with the same 503 while the limit is held', () =>
  whileHeld(async (statusOf) => {
    for (const path of ['/rpc', '/RPC/', 'http://any.host/rpc']) assert.equal(await statusOf(getRequest(path, { 'content-type': 'application/json' }, 'POST')), 503, path);
    // a GET of /rpc is no call (the endpoint answers it Invalid Request): not counted
    assert.equal(await statusOf(getRequest('/rpc')), 404);
  }));

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

test('the drain sends the held shed answers at once with Connection: close', { timeout: 60_000 }, async (t) => {
  // admission's ticker stopped (mock.timers): no tick sends a held answer, whatever the machine's pace
  t.mock.timers.enable({ apis: ['setInterval'] });
  const gated = gatedRoute();
  const served = await serve(gated.route, { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '600' });
  const clients: RawConnection[] = [];
  try {
    for (let i = 0; i < 2; i++) clients.push((await send(served.port, `/api/v1/contracts/${i}`)).client);
    await untilMetric(served.port, 'http_requests_in_flight', 2);
    const more = await Promise.all(Array.from({ length: 30 }, (_, i) => send(served.port, `/api/v1/contracts/${200 + i}`)));
    clients.push(...more.map((s) => s.client));
    // the drain only once the server has decided every one of them (answered or held): a request it
    // has not read yet when the drain starts is closed unanswered
    await untilMetric(served.port, 'http_requests_shed_total\\{reason="limit"\\}', 30);
    assert.equal(await metricOf(served.port, 'http_shed_answers_held'), 20, "all but the budget of a tick held");
    const drained = drainOf(served.app).drain(2000);
    const answers = await Promise.all(more.map((m) => m.answer));
    assert.ok(answers.every((a) => a.status === 503));
    assert.equal(answers.filter((a) => a.headers.connection === 'close').length, 20, 'the held ones say Connection: close');
    gated.open();
    await drained;
  } finally {
    gated.open();
    for (const client of clients) client.destroy();
    await served.app.close();
  }
});

test('by default a request is shed only past what its clients wait: 1,000 in flight beyond the pool, and the limit holds while statements wait up to 5 s (issue 58)', async (t) => {
  const clock = onFakeClock(t, {}, () => 0);
  const limitNow = () => clock.metric('http_concurrency_limit');
  const report = clock.report.bind(clock);
  assert.equal(await limitNow(), 1001, 'the pool plus 1,000');
  for (let i = 0; i < 256; i++) assert.equal(clock.ask('/api/v1/contracts/1').shed, false, `256 connections' requests in flight (${i})`);
  report(4900, 2000);
  assert.equal(await limitNow(), 1001, 'statements waiting 4.9 s: their requests still answer within the relay\'s 10 s');
  report(8000, 300);
  assert.ok((await limitNow()) < 1001, 'waits of 8 s: the limit comes down');
});
