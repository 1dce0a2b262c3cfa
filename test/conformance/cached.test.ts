/**
 * The conformance suite with the response cache on, against a Redis server of this test's own:
 * every case answered, replayed from the in-process tier and from Redis, byte for byte (see
 * cached.ts). Embedded database only; skipped where redis-server is not installed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type TestRedis, startTestRedis } from '../support/redis.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPECS = [join(ROOT, '..', 'shared', 'conformance', 'specs'), join(ROOT, '..', 'shared', 'conformance', 'specs-extra')];

let redis: TestRedis | undefined;
before(async () => {
  redis = await startTestRedis();
});
after(() => redis?.close());

test('every spec, replayed from both cache tiers, answers byte for byte as computed', { timeout: 600_000 }, async (t) => {
  if (!redis) return t.skip('redis-server is not installed');
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/conformance/run.ts', ...SPECS], {
    cwd: ROOT,
    env: { ...process.env, TEST_DATABASE_URL: '', CONFORMANCE_CACHE_REDIS: `${redis.url}/0` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, output.slice(-4000));
  const summary = /^(\d+) passed, (\d+) failed$/m.exec(output);
  assert.ok(summary && Number(summary[1]) > 0 && summary[2] === '0', output.slice(-4000));
  // every key was deleted at the end of its run
  assert.deepEqual(await redis.keys(), []);
});
