/**
 * A repeated or malformed Host (RFC 9112 section 3.2), and an absolute-form target whose host is
 * malformed: 400 in the mirror's error body before routing (src/http/server/hostCheck.ts), for a
 * URL whose answer the in-process tier holds (the fast path) and for one it does not (the routed
 * path); the reference serves these with the first Host. Well-formed hosts are served as before.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createApp } from '../../../src/app.ts';
import { seedDemo } from '../../../src/demo/seed.ts';
import { testConfig } from '../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../support/database.ts';
import { exchangeRaw, rawRequest } from '../../support/rawHttp.ts';

const CACHED = '/api/v1/contracts/results?limit=1';
const UNCACHED = '/api/v1/contracts/results?limit=2';

let database: TestDatabase;
let app: FastifyInstance;
let port: number;
let routed = 0;
const accessLines: Array<Record<string, unknown>> = [];

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.05 });
  const config = testConfig({ HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true', HIERO_MIRROR_REST_REDIS_URI: 'redis://127.0.0.1:1' });
  const logger = pino({ level: 'info' }, { write: (line: string) => void accessLines.push(JSON.parse(line)) });
  app = createApp(config, database.db, logger);
  app.addHook('onRequest', (_request, _reply, done) => {
    routed++;
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
after(async () => {
  await app?.close();
  await database?.close();
});

const get = (target: string, lines: ReadonlyArray<readonly [string, string]>, method = 'GET') =>
  exchangeRaw(port, rawRequest(target, lines, method), method === 'HEAD');

const bad: Array<[string, string, ReadonlyArray<readonly [string, string]>, string]> = [
  ['two Host lines', '', [['Host', 'previewnet.x'], ['Host', 'testnet.x']], 'Invalid Host header: more than one'],
  ['two Host lines, the same', '', [['Host', 'x'], ['host', 'x']], 'Invalid Host header: more than one'],
  ['a Host list', '', [['Host', 'previewnet.x, testnet.x']], 'Invalid Host header: a list of hosts'],
  ['port 0', '', [['Host', 'x:0']], 'Invalid Host header: the port is not a number from 1 to 65535'],
  ['port 99999', '', [['Host', 'x:99999']], 'Invalid Host header: the port is not a number from 1 to 65535'],
  ['a port of letters', '', [['Host', 'x:abc']], 'Invalid Host header: the port is not a number from 1 to 65535'],
  ['a path in Host', '', [['Host', 'evil.com/<script>']], 'Invalid Host header: not hostname[:port]'],
  ['a target host with port 99999', 'http://x:99999', [['Host', 'x']], 'Invalid host in the request target: the port is not a number from 1 to 65535'],
  ['a target host with credentials', 'http://user:pw@x', [['Host', 'x']], 'Invalid host in the request target: not hostname[:port]'],
  ['an empty target host', 'http://', [['Host', 'x']], 'Invalid host in the request target: not hostname[:port]'],
];

test('a repeated or malformed Host: 400 before routing, on the fast path (a cached answer) and the routed path', async () => {
  // the in-process tier holds CACHED: a second request is served before routing
  assert.equal((await get(CACHED, [['Host', 'x']])).status, 200);
  let before = routed;
  assert.equal((await get(CACHED, [['Host', 'x']])).status, 200);
  assert.equal(routed, before, 'a cache hit is answered before routing');

  for (const [what, prefix, lines, message] of bad) {
    for (const path of [CACHED, UNCACHED]) {
      before = routed;
      const res = await get(`${prefix}${path}`, [...lines, ['X-Request-Id', 'bad-host']]);
      assert.equal(res.status, 400, `${what} ${path}`);
      assert.equal(res.body, JSON.stringify({ _status: { messages: [{ message }] } }), what);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers.vary, 'Accept-Encoding');
      assert.equal(res.headers['x-request-id'], 'bad-host');
      assert.equal(res.headers.connection, 'close');
      assert.equal(res.ended, 'closed', `${what}: closed cleanly after the answer`);
      assert.equal(routed, before, `${what} ${path}: never routed`);
    }
  }
  const head = await get(UNCACHED, [['Host', 'x:0']], 'HEAD');
  assert.equal(head.status, 400);
  assert.equal(head.body, '');
  assert.ok(Number(head.headers['content-length']) > 0, 'the length of the GET body');
  assert.ok(
    accessLines.some((line) => line.msg === 'request' && line.reqId === 'bad-host' && line.status === 400),
    'an access line for each refusal',
  );
  const metrics = (await app.inject('/metrics')).body;
  assert.match(metrics, /http_requests_total\{method="GET",route="unmatched",status="400"\} \d+/);
});

test('well-formed hosts are served as before: ports 1 to 65535, IPv6, an empty Host, HTTP/1.0 without one', async () => {
  for (const lines of [[['Host', 'x:1']], [['Host', 'x:65535']], [['Host', 'X.Example.:0080']], [['Host', '[::1]:8080']], [['Host', '']]] as const) {
    const res = await get(UNCACHED, lines);
    assert.equal(res.status, 200, JSON.stringify(lines));
  }
  const old = await exchangeRaw(port, rawRequest(UNCACHED, [], 'GET', '1.0'));
  assert.equal(old.status, 200);
  // an HTTP/1.1 request without Host: Node's own 400, as in the reference
  const none = await get(UNCACHED, []);
  assert.equal(none.status, 400);
});
