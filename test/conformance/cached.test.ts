/**
 * The conformance suite with the response cache on, against a Redis server of this test's own:
 * every case answered, replayed from the in-process tier and from Redis, byte for byte (see
 * cached.ts). Embedded database only; skipped where redis-server is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runConformance } from '../support/conformanceRun.ts';
import { type TestRedis, startTestRedis } from '../support/redis.ts';


let redis: TestRedis | undefined;
before(async () => {
  redis = await startTestRedis();
});
after(() => redis?.close());

test('every spec, replayed from both cache tiers, answers byte for byte as computed', { timeout: 600_000 }, async (t) => {
  if (!redis) return t.skip('redis-server is not installed');
  const run = await runConformance({ CONFORMANCE_CACHE_REDIS: `${redis.url}/0` });
  assert.equal(run.code, 0, run.tail);
  assert.ok(run.passed !== undefined && run.passed > 0 && run.failed === 0, run.tail);
  // every key was deleted at the end of its run
  assert.deepEqual(await redis.keys(), []);
});
