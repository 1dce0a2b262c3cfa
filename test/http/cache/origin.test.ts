/**
 * No cached answer carries one client's origin to another: over real sockets, with the in-process
 * tier (a hit served before routing, and one after) and with the Redis tier (a second process
 * sharing a Redis server of the test's own; skipped without redis-server). Without
 * includeHostInLink an absolute-form target's origin is in no answer, cached or not; with it, each
 * host's links live under their own cache identity.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../../src/app.ts';
import { seedDemo } from '../../../src/demo/seed.ts';
import { testConfig } from '../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../support/database.ts';
import { exchangeRaw, rawRequest } from '../../support/rawHttp.ts';
import { type TestRedis, hasRedisServer, startTestRedis } from '../../support/redis.ts';

const URL = '/api/v1/contracts/results?limit=1';
const NO_REDIS_SERVER = !hasRedisServer() && 'no redis-server';

interface Process {
  app: FastifyInstance;
  port: number;
  routed: () => number;
  hits: (tier: 'local' | 'redis') => Promise<number>;
}

let database: TestDatabase;
let redis: TestRedis | undefined;
const apps: FastifyInstance[] = [];

async function start(redisUrl: string, env: Record<string, string> = {}): Promise<Process> {
  const config = testConfig({
    HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true',
    HIERO_MIRROR_REST_REDIS_URI: redisUrl,
    HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: `cqs-origin-${process.pid}:`,
    HIERO_MIRROR_REST_CACHE_RESPONSE_TIMEOUT: '1000',
    ...env,
  });
  const app = createApp(config, database.db, false);
  apps.push(app);
  let routed = 0;
  app.addHook('onRequest', (_request, _reply, done) => {
    routed++;
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const hits = async (tier: string) => {
    const line = (await app.inject('/metrics')).body.split('\n').find((l) => l.startsWith(`response_cache_hits_total{tier="${tier}"}`));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  };
  return { app, port: (app.server.address() as AddressInfo).port, routed: () => routed, hits };
}

const get = (process: Process, target: string, host: string) => exchangeRaw(process.port, rawRequest(target, [['Host', host]]));

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.05 });
  redis = await startTestRedis();
});
after(async () => {
  for (const app of apps) await app.close();
  await redis?.close();
  await database?.close();
});

describe('without includeHostInLink', () => {
  test('in-process tier: an answer computed for an absolute-form target holds no origin, and a hit served before routing none either', async () => {
    const one = await start('redis://127.0.0.1:1');
    const evil = await get(one, `http://evil.example:666${URL}`, '127.0.0.1');
    assert.equal(evil.status, 200);
    assert.doesNotMatch(evil.head + evil.body, /evil|:666/);
    const before = one.routed();
    const other = await get(one, URL, '127.0.0.1');
    assert.equal(one.routed(), before, 'a hit before routing: the same entry');
    assert.equal(other.body, evil.body);
    assert.doesNotMatch(other.head + other.body, /evil|:666/);
  });

  test('Redis tier: another process reads the entry without any origin', { skip: NO_REDIS_SERVER }, async () => {
    const [first, second] = [await start(redis!.url), await start(redis!.url)];
    const evil = await get(first, `http://evil.example:666${URL.replace('limit=1', 'limit=2')}`, '127.0.0.1');
    assert.doesNotMatch(evil.head + evil.body, /evil|:666/);
    const redisHits = await second.hits('redis');
    const other = await get(second, URL.replace('limit=1', 'limit=2'), 'client.example');
    assert.equal(await second.hits('redis'), redisHits + 1, 'a Redis hit');
    assert.equal(other.body, evil.body);
    assert.doesNotMatch(other.head + other.body, /evil|:666/);
  });
});

describe('with includeHostInLink', () => {
  const ON = { HIERO_MIRROR_REST_RESPONSE_INCLUDEHOSTINLINK: 'true' };
  const origin = (res: { body: string }) => /"next":"(https?:\/\/[^/]*)\//.exec(res.body)?.[1];

  test('in-process tier: each host its own entry; a second client never gets the first one\'s origin', async () => {
    const one = await start('redis://127.0.0.1:1', ON);
    assert.equal(origin(await get(one, `http://a.example:666${URL}`, 'b.example')), 'http://a.example:5551');
    const localHits = await one.hits('local');
    const b = await get(one, URL, 'b.example');
    assert.equal(origin(b), 'http://b.example:5551');
    assert.doesNotMatch(b.head, /a\.example/);
    assert.equal(origin(await get(one, URL, 'a.example')), 'http://a.example:5551');
    assert.equal(await one.hits('local'), localHits + 1, "a.example's own entry was hit");
  });

  test('Redis tier: another process gets each host\'s own entry', { skip: NO_REDIS_SERVER }, async () => {
    const [first, second] = [await start(redis!.url, ON), await start(redis!.url, ON)];
    const path = URL.replace('limit=1', 'limit=3');
    assert.equal(origin(await get(first, `http://a.example${path}`, 'b.example')), 'http://a.example:5551');
    const redisHits = await second.hits('redis');
    const b = await get(second, path, 'b.example');
    assert.equal(origin(b), 'http://b.example:5551');
    assert.doesNotMatch(b.head, /a\.example/);
    assert.equal(await second.hits('redis'), redisHits, "b.example's answer was no Redis hit of a.example's");
    assert.equal(origin(await get(second, `http://a.example:1${path}`, 'b.example')), 'http://a.example:5551');
    assert.equal(await second.hits('redis'), redisHits + 1, "a.example's entry read from Redis");
  });
});
