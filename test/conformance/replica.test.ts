/**
 * The conformance suite with its reads on a streaming replica: a primary and a pg_basebackup
 * replica on free ports (test/support/replicaCluster.ts), run.ts with TEST_DATABASE_URL on the
 * primary and TEST_REPLICA_URL on the replica. Every case must pass, and every read must have run
 * on the replica. Skips where the PostgreSQL binaries are missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { freePort } from '../../bench/lib/cli.ts';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { replicaSkipReason, startReplicaCluster } from '../support/replicaCluster.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SPECS = [join(REPO, '..', 'shared', 'conformance', 'specs'), join(REPO, '..', 'shared', 'conformance', 'specs-extra')];

test('conformance with every read on a streaming replica', { skip: replicaSkipReason(), timeout: 900_000 }, async (t) => {
  const cluster = await startReplicaCluster(await freePort(), await freePort());
  const replica = `127\\.0\\.0\\.1:${cluster.replicaPort}`;
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, TEST_DATABASE_URL: cluster.primaryUrl, TEST_REPLICA_URL: cluster.replicaUrl };
    delete env.CONFORMANCE_CACHE_REDIS;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO, 'test/conformance/run.ts'), ...SPECS], {
      cwd: REPO,
      env,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string; message: string }) => {
      assert.fail(`conformance on the replica failed: ${(err.stdout ?? err.message).split('\n').slice(-40).join('\n')}`);
    });
    const summary = stdout.split('\n').filter((line) => line.startsWith('conformance on') || line.startsWith('reads:'));
    t.diagnostic(summary.join('; '));
    assert.match(stdout, new RegExp(`conformance on postgres \\(\\w+\\) with reads on the replica ${replica}: [1-9]\\d* passed, 0 failed`));
    assert.match(stdout, new RegExp(`reads: \\{"primary":0,"${replica}":[1-9]\\d*\\}`));
  } finally {
    await cluster.stop();
  }
});
