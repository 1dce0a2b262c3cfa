/**
 * The bench workload: the generator samples a demo network into distinct URLs over all ten routes
 * that the service answers (200), with a hot set of the newest blocks; the zipf mix draws ranks in
 * proportion to 1/k^s and the hot set at its share; the hit ratio comes from two /metrics scrapes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { cacheReport, parseCacheCounters } from '../../bench/lib/cacheMetrics.ts';
import { ENDPOINTS, classify } from '../../bench/lib/urls.ts';
import { type Samples, buildWorkload, sampleDatabase, seededRandom, zipfSampler } from '../../bench/lib/workload.ts';
import type { Db } from '../../src/db/db.ts';
import { formatTimestamp } from '../../src/format/timestamp.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { appOn } from '../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';

let database: TestDatabase;
let app: FastifyInstance;
let samples: Samples;
const queryable = (db: Db) => ({ query: async <R>(text: string, values?: unknown[]) => ({ rows: await db.query<R>(text, values ?? []) }) });

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.3 });
  app = appOn(database.db);
  samples = await sampleDatabase(queryable(database.db), 400, 0.5);
});
after(async () => {
  await app.close();
  await database.close();
});

test('the workload: distinct URLs over all ten routes, each answered 200; the hot set reads the newest blocks', async () => {
  const workload = buildWorkload(samples, 1500, seededRandom(1));
  assert.equal(workload.urls.length, 1500);
  assert.equal(new Set(workload.urls).size, 1500);
  const routes = new Set(workload.urls.map(classify));
  assert.deepEqual([...routes].sort(), [...ENDPOINTS].sort());
  assert.ok(workload.hot.length >= 6);
  const newest = samples.newest.map((b) => `timestamp=gte:${formatTimestamp(b.start)}&timestamp=lte:${formatTimestamp(b.end)}`);
  assert.ok(workload.hot.every((url) => newest.some((range) => url.includes(range))), workload.hot.join('\n'));
  const failures: string[] = [];
  for (const url of [...workload.urls.filter((_, i) => i % 5 === 0), ...workload.hot]) {
    const response = await app.inject(url);
    if (response.statusCode !== 200) failures.push(`${response.statusCode} ${url} ${response.body.slice(0, 120)}`);
  }
  assert.deepEqual(failures, []);
  // the same seed gives the same file
  assert.deepEqual(buildWorkload(samples, 1500, seededRandom(1)).urls, workload.urls);
  assert.notDeepEqual(buildWorkload(samples, 1500, seededRandom(2)).urls, workload.urls);
});

test('the workload: fewer URLs than asked for when the database gives no more, never duplicates', () => {
  const workload = buildWorkload(samples, 1_000_000, seededRandom(1));
  assert.ok(workload.urls.length < 1_000_000);
  assert.equal(new Set(workload.urls).size, workload.urls.length);
});

test('zipf: rank k drawn in proportion to 1/k^s, the hot set at its share', () => {
  const n = 1000;
  const draw = zipfSampler(n, 1, 5, 0.2, seededRandom(7));
  const counts = new Array(n + 5).fill(0);
  const draws = 200_000;
  for (let i = 0; i < draws; i++) counts[draw()]++;
  const hot = counts.slice(n).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(hot / draws - 0.2) < 0.01, `hot share ${hot / draws}`);
  const harmonic = Array.from({ length: n }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0);
  for (const k of [1, 2, 10]) {
    const expected = (0.8 * draws) / k / harmonic;
    assert.ok(Math.abs(counts[k - 1] - expected) < expected * 0.1, `rank ${k}: ${counts[k - 1]} vs ${expected}`);
  }
  // s = 0 is uniform
  const uniform = zipfSampler(10, 0, 0, 0, seededRandom(3));
  const u = new Array(10).fill(0);
  for (let i = 0; i < 50_000; i++) u[uniform()]++;
  assert.ok(u.every((c) => Math.abs(c - 5000) < 400), u.join(' '));
});

test('hit ratio: from the response cache counters of two scrapes', () => {
  const scrape = (local: number, redis: number, computed: number) =>
    parseCacheCounters(
      [
        `response_cache_hits_total{tier="local"} ${local}`,
        `response_cache_hits_total{tier="redis"} ${redis}`,
        `response_cache_misses_total{tier="local"} ${redis + computed}`,
        `response_cache_misses_total{tier="redis"} ${computed}`,
        'response_cache_coalesced_total 0',
        `response_cache_computed_total{kept="max-age"} ${computed}`,
        'response_cache_redis_errors_total 0',
      ].join('\n'),
    )!;
  const report = cacheReport(scrape(10, 5, 5), scrape(70, 15, 15));
  assert.equal(report.localHits, 60);
  assert.equal(report.hitRatio, 70 / 80);
  assert.equal(report.redisHitRatio, 0.5);
  assert.equal(parseCacheCounters('http_requests_total 5'), undefined);
});
