/**
 * Hits of the in-process cache tier are sent before Fastify routes the request
 * (src/http/server/cacheHits.ts). Over a real socket, against a server without the cache: such an
 * answer is the full path's answer byte for byte (status line, every header but Date in the same
 * order, body, compressed alike for every Accept-Encoding), with the same access-log line and
 * metrics; and every request the full path would answer otherwise (HEAD, If-None-Match, an
 * answer the compression stage streams, links with the host, a path reaching its route through a
 * special case, a draining process) still goes through Fastify.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createApp } from '../../../src/app.ts';
import { demoExamples } from '../../../src/demo/examples.ts';
import { readDemoInfo, seedDemo } from '../../../src/demo/seed.ts';
import { drainOf } from '../../../src/http/server/plugins/drain.ts';
import { testConfig } from '../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../support/database.ts';
import { requestOverSocket } from '../../support/socketRequest.ts';

/** Nothing listens there: the shared tier is down, the in-process tier answers. */
const NO_REDIS = 'redis://127.0.0.1:1';

interface Served {
  app: FastifyInstance;
  port: number;
  /** Requests that reached Fastify (its onRequest hooks). */
  routed: () => number;
  /** The access-log lines, without their time and duration. */
  accessLines: () => string[];
  close(): Promise<void>;
}

let database: TestDatabase;
let paths: string[] = [];

async function serve(env: Record<string, string> = {}): Promise<Served> {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = testConfig({
    HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true',
    HIERO_MIRROR_REST_REDIS_URI: NO_REDIS,
    HIERO_MIRROR_REST_REDIS_MAXBACKOFF: '60000',
    ...env,
  });
  const app = createApp(config, database.db, logger);
  let routed = 0;
  app.addHook('onRequest', (_request, _reply, done) => {
    routed++;
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    port: (app.server.address() as AddressInfo).port,
    routed: () => routed,
    accessLines: () =>
      lines.filter((line) => line.msg === 'request').map(({ time: _time, ms: _ms, ...rest }) => JSON.stringify(rest)),
    close: () => app.close(),
  };
}

interface Exchanged {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string | undefined>;
  body: string;
  /** The status line's code and message, every header as sent (name case, order) but Date, and the body. */
  wire: string;
}

/** One request on a connection of its own. */
async function exchange(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Exchanged> {
  const response = await requestOverSocket(port, path, { 'x-request-id': 'same', ...headers }, method);
  assert.ok(response, `${path} can be sent`);
  const lines: string[] = [`${response.statusCode} ${response.statusMessage}`];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    if (response.rawHeaders[i]!.toLowerCase() !== 'date') lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
  }
  return {
    status: response.statusCode,
    headers: response.headers as Record<string, string | undefined>,
    body: response.body.toString('utf8'),
    wire: `${lines.join('\n')}\n\n${response.body.toString('base64')}`,
  };
}

async function metricsOf(served: Served): Promise<string[]> {
  const text = (await served.app.inject('/metrics')).body;
  return text.split('\n').filter((line) => line.startsWith('http_requests_total{') && !line.includes('metrics'));
}

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  const info = await readDemoInfo(database.db);
  paths = [
    ...demoExamples(info!.facts).map((example) => example.path),
    '/api/v1/contracts?limit=2',
    '/api/v1/contracts?limit=1',
    '/api/v1/contracts/results?limit=100',
    '/api/v1/contracts/results/logs?limit=3&order=asc',
    '/API/v1/contracts/results?limit=1',
  ];
});
after(() => database?.close());

describe('the in-process tier before routing', () => {
  let served: Served;
  let plain: Served;
  before(async () => {
    served = await serve();
    plain = await serve({ HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'false' });
  });
  after(async () => {
    await served.close();
    await plain.close();
  });

  test('a hit is the uncached answer byte for byte, with the same log line and metrics', async () => {
    let sent = 0;
    let linked = 0;
    let small = 0;
    let streamed = 0;
    const earlyEncodings = new Set<string>();
    const variants: Record<string, string>[] = [
      {},
      { origin: 'https://wallet.example' },
      { connection: 'close' },
      { 'accept-encoding': 'gzip' },
      { 'accept-encoding': 'gzip, deflate, br' },
      { 'accept-encoding': 'deflate' },
      { 'accept-encoding': 'br;q=0.5, gzip;q=0.8' },
      { 'accept-encoding': 'x-gzip' },
      { 'accept-encoding': '*' },
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'zstd' },
      { 'accept-encoding': 'gzip;q=0' },
      { 'accept-encoding': 'GZIP' },
      { 'accept-encoding': 'gzip', 'x-no-compression': '1' },
    ];
    for (const path of paths) {
      for (const headers of variants) {
        const what = `${path} ${JSON.stringify(headers)}`;
        const uncached = await exchange(plain.port, path, headers);
        assert.equal(uncached.status, 200, `${what}: ${uncached.body}`);
        const encoding = uncached.headers['content-encoding'];
        // an answer the compression stage streams (chunked) always takes the route
        const chunked = uncached.headers['transfer-encoding'] === 'chunked';
        // the first may compute; a next one is a hit (an answer may live a second only: up to four tries)
        let tries = 0;
        let routed = 0;
        do {
          const before = served.routed();
          const answer = await exchange(served.port, path, headers);
          sent++;
          tries++;
          assert.equal(answer.wire, uncached.wire, what);
          routed += served.routed() - before;
        } while (tries < 2 || (!chunked && routed === tries && tries < 4));
        if (chunked) {
          assert.equal(routed, tries, `${what}: streamed answers take the route`);
          streamed++;
        } else {
          assert.ok(routed < tries, `${what}: a hit was served before routing`);
          if (encoding !== undefined) earlyEncodings.add(encoding);
        }
        if (uncached.headers.link !== undefined) linked++;
        if (encoding === undefined && 'accept-encoding' in headers) small++;
      }
    }
    assert.ok(linked >= 4, `answers with a link were among them (${linked})`);
    assert.ok(small >= 1, `answers too small to compress were among them (${small})`);
    assert.ok(streamed >= 1, `answers too large to compress in one go were among them (${streamed})`);
    assert.deepEqual([...earlyEncodings].sort(), ['br', 'deflate', 'gzip'], 'compressed hits of every encoding were served before routing');
    const uncachedLines = new Set(plain.accessLines());
    for (const line of served.accessLines()) assert.ok(uncachedLines.has(line), `access line as the uncached one: ${line}`);
    const counted = (await metricsOf(served)).reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    assert.equal(counted, sent, 'each request counted once in http_requests_total');
  });

  test('HEAD, If-None-Match and a path reaching its route through a special case go through Fastify', async () => {
    const path = paths[0]!;
    const fresh = await exchange(served.port, path);
    let routed = served.routed();
    const head = await exchange(served.port, path, {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], fresh.headers['content-length']);
    const notModified = await exchange(served.port, path, { 'if-none-match': fresh.headers.etag! });
    assert.equal(notModified.status, 304);
    assert.equal(served.routed() - routed, 2);

    // `/api/v1/contracts//` is the listing, as the reference routes it: its copy is the listing's,
    // but not one the fast path may serve under that path
    await exchange(served.port, '/api/v1/contracts//');
    routed = served.routed();
    const again = await exchange(served.port, '/api/v1/contracts//');
    assert.equal(again.status, 200);
    assert.equal(served.routed() - routed, 1);
  });

  test('a draining process answers 503 through Fastify, even for what the tier holds', async () => {
    const path = paths[1]!;
    await exchange(served.port, path);
    const drain = drainOf(served.app);
    const drained = drain.drain(3000);
    const refused = await exchange(served.port, path).catch(() => undefined);
    if (refused) {
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.connection, 'close');
    }
    await drained;
  });
});

test('links with the host: never served before routing (the origin is the request\'s)', async () => {
  const served = await serve({ HIERO_MIRROR_REST_RESPONSE_INCLUDEHOSTINLINK: 'true' });
  try {
    const path = '/api/v1/contracts?limit=2';
    const fresh = await exchange(served.port, path);
    const routed = served.routed();
    const replayed = await exchange(served.port, path);
    assert.equal(replayed.wire, fresh.wire);
    assert.match(replayed.headers.link!, /^<http:\/\/127\.0\.0\.1:/);
    assert.equal(served.routed() - routed, 1);
  } finally {
    await served.close();
  }
});

test('without response.compression an answer of any size is served before routing, Accept-Encoding or not', async () => {
  const served = await serve({ HIERO_MIRROR_REST_RESPONSE_COMPRESSION: 'false' });
  try {
    const path = '/api/v1/contracts/results?limit=100';
    const fresh = await exchange(served.port, path, { 'accept-encoding': 'gzip' });
    assert.ok(Number(fresh.headers['content-length']) > 1024);
    assert.equal(fresh.headers.vary, undefined);
    const routed = served.routed();
    const replayed = await exchange(served.port, path, { 'accept-encoding': 'gzip' });
    assert.equal(replayed.wire, fresh.wire);
    assert.equal(served.routed(), routed);
  } finally {
    await served.close();
  }
});
