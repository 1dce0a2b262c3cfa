/**
 * The response cache in the app, with a Redis server of the test's own (skipped where redis-server
 * is not installed) and with none at all: hits from either tier are byte for byte the fresh
 * answer, headers included; 304 from every path; entries live as long as the answer's max-age (or
 * immutableMaxAge); processes share Redis; identical requests in flight run once; and Redis that
 * is missing, goes away, or stops answering never fails or stalls a request and is logged once per
 * change of state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { createApp } from '../../../src/app.ts';
import type { Db } from '../../../src/db/db.ts';
import { testConfig } from '../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../support/database.ts';
import { type TestRedis, startTestRedis } from '../../support/redis.ts';
import { BASE_TS, STEP, insertFixtures } from '../../contracts/results/fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

const PREFIX = `cqs-test-${process.pid}:`;
const CLOSED_PORT_URL = 'redis://127.0.0.1:1';

function cacheConfig(redisUrl: string, extra: Record<string, string> = {}) {
  return testConfig({
    HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true',
    HIERO_MIRROR_REST_REDIS_URI: redisUrl,
    HIERO_MIRROR_REST_REDIS_MAXBACKOFF: '100',
    HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: PREFIX,
    // generous: the machine may be busy, and only one test is about slowness
    HIERO_MIRROR_REST_CACHE_RESPONSE_TIMEOUT: '1000',
    ...extra,
  });
}

interface LoggedApp {
  app: FastifyInstance;
  /** Messages the app logged at warn level and above, and the cache's own info lines. */
  lines: Array<{ level: number; msg: string }>;
}

function cachedApp(db: Db, redisUrl: string, extra: Record<string, string> = {}): LoggedApp {
  const lines: LoggedApp['lines'] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { app: createApp(cacheConfig(redisUrl, extra), db, logger), lines };
}

const cacheLines = (lines: LoggedApp['lines']) => lines.filter((l) => l.msg.startsWith('response cache')).map((l) => l.msg);

/** GET with a fixed request id, so that two answers can be compared header for header. */
const request = (app: FastifyInstance, url: string, headers: InjectOptions['headers'] = {}) =>
  app.inject({ method: 'GET', url, headers: { 'x-request-id': 'same', ...headers } });

/** The response as bytes on the wire would show it, without the Date header. */
function wire(response: LightMyRequestResponse): { status: number; headers: Record<string, unknown>; body: string } {
  const { date: _date, ...headers } = response.headers;
  return { status: response.statusCode, headers, body: response.rawPayload.toString('base64') };
}

async function metric(app: FastifyInstance, name: string): Promise<number> {
  const text = (await app.inject('/metrics')).body;
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

async function until(what: string, condition: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const LAST = BASE_TS + 20n * STEP - 1n;
const URLS = {
  settled: `/api/v1/contracts/results?timestamp=gte:${seconds(BASE_TS)}&timestamp=lte:${seconds(LAST)}&limit=5`,
  open: `/api/v1/contracts/results?timestamp=gte:${seconds(BASE_TS)}&limit=3`,
  contract: `/api/v1/contracts/0.0.1001/results?limit=2`,
};

let database: TestDatabase;
before(async () => {
  database = await openTestDatabase('embedded');
  await insertFixtures(database.db);
});
after(() => database.close());

describe('with a Redis server', () => {
  let redis: TestRedis | undefined;
  before(async () => {
    redis = await startTestRedis();
  });
  after(() => redis?.close());

  const withRedis = (name: string, body: (redis: TestRedis) => Promise<void>) =>
    test(name, async (t) => {
      if (!redis) return t.skip('redis-server is not installed');
      await body(redis);
    });

  withRedis('hits from the in-process tier and from Redis are the fresh answer byte for byte, headers included', async (redis) => {
    const a = cachedApp(database.db, redis.url);
    const b = cachedApp(database.db, redis.url);
    const plain = createApp(testConfig(), database.db);
    try {
      await until('Redis ready', async () => (await metric(a.app, 'response_cache_redis_up')) === 1 && (await metric(b.app, 'response_cache_redis_up')) === 1);
      for (const url of Object.values(URLS)) {
        for (const encoding of [undefined, 'gzip', 'br']) {
          const headers = encoding ? { 'accept-encoding': encoding } : {};
          const uncached = wire(await request(plain, url, headers));
          assert.equal(uncached.status, 200);
          const first = wire(await request(a.app, url, headers));
          assert.deepEqual(first, uncached, `${url} fresh`);
          assert.deepEqual(wire(await request(a.app, url, headers)), first, `${url} from the in-process tier`);
          await until('the entry in Redis', async () => (await redis.keys()).length > 0);
          await a.app.inject('/metrics');
          assert.deepEqual(wire(await request(b.app, url, headers)), first, `${url} from Redis`);
        }
      }
      assert.ok((await metric(a.app, 'response_cache_hits_total{tier="local"}')) >= 9);
      assert.ok((await metric(b.app, 'response_cache_hits_total{tier="redis"}')) >= 1);
      // HEAD shares the GET's entry
      const computed = await metric(b.app, 'response_cache_computed_total');
      const head = await b.app.inject({ method: 'HEAD', url: URLS.settled, headers: { 'x-request-id': 'same' } });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers.etag, (await request(plain, URLS.settled)).headers.etag);
      assert.equal(await metric(b.app, 'response_cache_computed_total'), computed);
    } finally {
      await Promise.all([a.app.close(), b.app.close(), plain.close()]);
    }
  });

  withRedis('entries: under the key prefix, for the answer\'s max-age, or immutableMaxAge when settled', async (redis) => {
    const { app } = cachedApp(database.db, redis.url, { HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: `${PREFIX}ttl:` });
    try {
      await until('Redis ready', async () => (await metric(app, 'response_cache_redis_up')) === 1);
      const ttl = async (url: string) => {
        const before = new Set(await redis.keys());
        await request(app, url);
        let added: string[] = [];
        await until(`the entry of ${url}`, async () => (added = (await redis.keys()).filter((k) => !before.has(k))).length === 1);
        assert.ok(added[0]!.startsWith(`${PREFIX}ttl:v1:`), added[0]);
        const { execFileSync } = await import('node:child_process');
        return Number(execFileSync('redis-cli', ['-u', redis.url, 'pttl', added[0]!], { encoding: 'utf8' }).trim());
      };
      const open = await ttl(URLS.open);
      assert.ok(open > 8_000 && open <= 10_000, `max-age=10: ${open} ms`);
      const settled = await ttl(URLS.settled);
      assert.ok(settled > 86_390_000 && settled <= 86_400_000, `settled: ${settled} ms`);
      const contract = await ttl(URLS.contract);
      assert.ok(contract > 0 && contract <= 1_000, `max-age=1: ${contract} ms`);
      assert.equal(await metric(app, 'response_cache_computed_total{kept="immutable"}'), 1);
      // an immutable answer replays with its configured max-age, not the time it has left
      assert.match(String((await request(app, URLS.settled)).headers['cache-control']), /^public, max-age=10$/);
    } finally {
      await app.close();
    }
  });

  withRedis('If-None-Match: 304 on a fresh answer, on an in-process hit and on a Redis hit', async (redis) => {
    const a = cachedApp(database.db, redis.url, { HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: `${PREFIX}304:` });
    const b = cachedApp(database.db, redis.url, { HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: `${PREFIX}304:`, HIERO_MIRROR_REST_CACHE_RESPONSE_LOCALMAXBYTES: '0' });
    try {
      await until('Redis ready', async () => (await metric(a.app, 'response_cache_redis_up')) === 1 && (await metric(b.app, 'response_cache_redis_up')) === 1);
      const etag = String((await createApp(testConfig(), database.db).inject(URLS.settled)).headers.etag);
      const conditional = { 'if-none-match': etag };
      const fresh = await request(a.app, URLS.settled, conditional);
      assert.equal(fresh.statusCode, 304);
      assert.equal(fresh.body, '');
      assert.equal(fresh.headers['content-type'], undefined);
      assert.equal(fresh.headers.etag, etag);
      assert.equal((await request(a.app, URLS.settled, conditional)).statusCode, 304);
      assert.equal(await metric(a.app, 'response_cache_hits_total{tier="local"}'), 1);
      await until('the entry in Redis', async () => (await redis.keys()).some((k) => k.startsWith(`${PREFIX}304:`)));
      const fromRedis = await request(b.app, URLS.settled, { 'if-none-match': `"other", ${etag.replace('W/', '')}` });
      assert.equal(fromRedis.statusCode, 304);
      assert.equal(await metric(b.app, 'response_cache_hits_total{tier="redis"}'), 1);
      assert.equal((await request(b.app, URLS.settled, { 'if-none-match': '"other"' })).statusCode, 200);
    } finally {
      await Promise.all([a.app.close(), b.app.close()]);
    }
  });

  withRedis('identical requests in flight run the route once', async (redis) => {
    const { app } = cachedApp(database.db, redis.url, { HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: `${PREFIX}flight:` });
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => request(app, URLS.contract)));
      assert.deepEqual(new Set(answers.map((r) => `${r.statusCode} ${r.body}`)).size, 1);
      assert.equal(await metric(app, 'response_cache_computed_total'), 1);
      assert.equal(await metric(app, 'response_cache_coalesced_total'), 7);
    } finally {
      await app.close();
    }
  });

  withRedis('Redis going away mid-run: answers go on, one line when it goes and one when it is back; a Redis that stops answering costs at most the timeout', async (redis) => {
    const { app, lines } = cachedApp(database.db, redis.url, {
      HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: `${PREFIX}away:`,
      HIERO_MIRROR_REST_CACHE_RESPONSE_LOCALMAXBYTES: '0',
      HIERO_MIRROR_REST_CACHE_RESPONSE_TIMEOUT: '300',
    });
    try {
      await until('Redis ready', async () => (await metric(app, 'response_cache_redis_up')) === 1);
      assert.equal((await request(app, URLS.open)).statusCode, 200);
      await redis.kill();
      for (let i = 0; i < 20; i++) {
        const response = await request(app, `/api/v1/contracts/results?limit=${i + 1}`);
        assert.equal(response.statusCode, 200, response.body);
        await sleep(10);
      }
      assert.deepEqual(cacheLines(lines), ['response cache: Redis connected', 'response cache: Redis unavailable; answering without its shared tier until it is back']);
      await redis.restart();
      await until('Redis back', async () => (await metric(app, 'response_cache_redis_up')) === 1);
      assert.equal(cacheLines(lines).at(-1), 'response cache: Redis is back');
      assert.equal((await request(app, URLS.contract)).statusCode, 200);
      await until('an entry stored again', async () => (await redis.keys()).some((k) => k.startsWith(`${PREFIX}away:`)));

      redis.pause();
      try {
        const started = Date.now();
        const slow = await request(app, '/api/v1/contracts/results?limit=31');
        assert.equal(slow.statusCode, 200);
        assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms with Redis not answering`);
        // skipped from then on, without waiting
        const next = Date.now();
        assert.equal((await request(app, '/api/v1/contracts/results?limit=32')).statusCode, 200);
        assert.ok(Date.now() - next < 150, `${Date.now() - next} ms after the timeout`);
        assert.ok((await metric(app, 'response_cache_redis_errors_total')) >= 1);
      } finally {
        redis.resume();
      }
      await until('Redis back after the pause', async () => (await metric(app, 'response_cache_redis_up')) === 1);
      const states = cacheLines(lines).slice(3);
      assert.deepEqual(states, ['response cache: Redis unavailable; answering without its shared tier until it is back', 'response cache: Redis is back']);
    } finally {
      await app.close();
    }
  });
});

test('Redis not there at all (a closed port): every answer as without the cache, the in-process tier still serves, one log line', async () => {
  const { app, lines } = cachedApp(database.db, CLOSED_PORT_URL);
  const plain = createApp(testConfig(), database.db);
  try {
    for (let i = 0; i < 3; i++) {
      for (const url of Object.values(URLS)) {
        const started = Date.now();
        assert.deepEqual(wire(await request(app, url)), wire(await request(plain, url)));
        assert.ok(Date.now() - started < 1000);
      }
      await sleep(150);
    }
    assert.ok((await metric(app, 'response_cache_hits_total{tier="local"}')) >= 6);
    assert.equal(await metric(app, 'response_cache_redis_up'), 0);
    assert.deepEqual(cacheLines(lines), ['response cache: Redis unavailable; answering without its shared tier until it is back']);
  } finally {
    await Promise.all([app.close(), plain.close()]);
  }
});

test('cache.response.enabled off (the default), or redis.enabled off: no cache, no connection', async () => {
  for (const config of [testConfig(), cacheConfig(CLOSED_PORT_URL, { HIERO_MIRROR_REST_REDIS_ENABLED: 'false' })]) {
    assert.equal(config.cache.enabled, false);
    const app = createApp(config, database.db);
    try {
      await request(app, URLS.open);
      assert.doesNotMatch((await app.inject('/metrics')).body, /response_cache/);
    } finally {
      await app.close();
    }
  }
});
