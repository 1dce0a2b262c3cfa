/**
 * Read replicas against a real streaming replica: a primary and a pg_basebackup replica of the
 * machine's PostgreSQL on free ports (test/support/replicaCluster.ts), the demo network seeded
 * on the primary, the service on a free port with db.replicas. Under load the replica is stopped
 * (no request may fail beyond the one in flight), restarted (it must be taken back), paused in its
 * replay (taken out for lag, back when it catches up); the response cache over the replica with its
 * replay paused and the primary (no answer that lacks rows is kept as settled); and the primary
 * stopped while the replica serves (readiness stays green). Skips where the PostgreSQL binaries are
 * missing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { createApp } from '../../src/app.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPostgresDb, postgresOptionsFromConfig } from '../../src/db/postgres.ts';
import type { ReplicatedDb } from '../../src/db/replicas.ts';
import { openServingDb } from '../../src/db/replicasOpen.ts';
import { demoExamples } from '../../src/demo/examples.ts';
import { readDemoInfo, seedDemo } from '../../src/demo/seed.ts';
import { testConfig } from '../support/app.ts';
import { type ReplicaCluster, replicaSkipReason, startReplicaCluster } from '../support/replicaCluster.ts';
import { BASE_TS, FIRST_BLOCK, PER_BLOCK, STEP, generate, insertBlocks, insertFixtures, insertResults } from '../contracts/results/fixtures.ts';
import { seconds } from '../support/timestamps.ts';
import { freePort } from '../../bench/lib/cli.ts';

// free ports of the moment: a fixed port may be taken by another server on the machine
const PRIMARY_PORT = await freePort();
const REPLICA_PORT = await freePort();
const SERVICE_PORT = await freePort();
const REPLICA = `127.0.0.1:${REPLICA_PORT}`;
const skip = replicaSkipReason();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

/** Bounded load: `workers` loops of GETs over `paths` until stop(); every answer's status kept. */
function load(base: string, paths: string[], workers: number) {
  const statuses: Array<{ at: number; status: number; path: string }> = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running && i < 1_000_000; i++) {
      const path = paths[i % paths.length]!;
      let status = 0;
      try {
        const response = await fetch(`${base}${path}`);
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = -1;
      }
      statuses.push({ at: Date.now(), status, path });
    }
  });
  return {
    statuses,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** `url` with another database. */
function onDatabase(url: string, name: string): string {
  const other = new URL(url);
  other.pathname = `/${name}`;
  return other.toString();
}

/**
 * The response cache over two servers at different record files: the replica with its replay
 * paused, and the primary listed as a second replica (it is never behind). Each answer is computed
 * on one of them; one computed on the replica lacks the rows of the record files it has not
 * replayed and must not be kept as settled, however far the primary is. A fixture network in a
 * database of its own: half of its record files replayed, the other half written while the
 * replica's replay is paused; every answer's range lies in the second half.
 */
async function checkCacheFinality(t: { diagnostic(message: string): void }, cluster: ReplicaCluster): Promise<void> {
  const name = `pin_check_${process.pid}`;
  const admin = new pg.Client({ connectionString: cluster.primaryUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = onDatabase(cluster.primaryUrl, name);
  const writer = createPostgresDb(testConfig({ DATABASE_URL: url }));
  const replica = new pg.Client({ connectionString: onDatabase(cluster.replicaUrl, name) });
  const split = 16;
  const splitTs = BASE_TS + BigInt(split * PER_BLOCK) * STEP;
  const data = generate();
  let paused = false;
  let db: ReplicatedDb | undefined;
  let app: ReturnType<typeof createApp> | undefined;
  let plain: ReturnType<typeof createApp> | undefined;
  const truthDb = createPostgresDb(testConfig({ DATABASE_URL: url }));
  try {
    await migrate(writer);
    await insertFixtures(writer, { results: data.results.filter((r) => r.ts < splitTs), blocks: data.blocks.filter((b) => b.index < FIRST_BLOCK + split) });
    await cluster.caughtUp();
    await replica.connect();
    await replica.query('select pg_wal_replay_pause()');
    paused = true;
    await insertResults(writer, data.results.filter((r) => r.ts >= splitTs));
    await insertBlocks(writer, data.blocks.filter((b) => b.index >= FIRST_BLOCK + split));

    const config = testConfig({
      DATABASE_URL: url,
      DATABASE_REPLICAS: `${REPLICA},127.0.0.1:${PRIMARY_PORT}`,
      HIERO_MIRROR_REST_DB_REPLICAS_MAXLAG: '10m',
      HIERO_MIRROR_REST_DB_REPLICAS_CHECKINTERVAL: '200ms',
      HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true',
      // no Redis: the in-process tier alone
      HIERO_MIRROR_REST_REDIS_URI: 'redis://127.0.0.1:1',
      HIERO_MIRROR_REST_REDIS_MAXBACKOFF: '60000',
    });
    db = openServingDb(config, { ...postgresOptionsFromConfig(config), readOnly: true }) as ReplicatedDb;
    const cached = createApp(config, db, false);
    app = cached;
    await until('both servers in the rotation', () => db!.replicas().every((r) => r.state === 'healthy'));
    const kept = async () => {
      const text = (await cached.inject('/metrics')).body;
      return Number(/^response_cache_computed_total\{kept="immutable"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const range = `timestamp=gte:${seconds(splitTs)}&timestamp=lte:${seconds(splitTs + BigInt(5 * PER_BLOCK) * STEP - 1n)}`;
    const answers: Array<{ url: string; body: string; settled: boolean }> = [];
    // spread over seconds, so that each server's bound is read several times
    for (let limit = 1; limit <= 16; limit++) {
      const path = `/api/v1/contracts/results?${range}&limit=${limit}`;
      const before = await kept();
      const response = await cached.inject(path);
      assert.equal(response.statusCode, 200, response.body);
      answers.push({ url: path, body: response.body, settled: (await kept()) > before });
      await sleep(250);
    }

    await replica.query('select pg_wal_replay_resume()');
    paused = false;
    await cluster.caughtUp();
    plain = createApp(testConfig({ DATABASE_URL: url }), truthDb, false);
    const stale: string[] = [];
    for (const answer of answers) {
      const truth = (await plain.inject(answer.url)).body;
      if (answer.body === truth) continue;
      stale.push(answer.url);
      assert.ok(!answer.settled, `kept as settled without the rows the primary has: ${answer.url}\n${answer.body}\nvs ${truth}`);
    }
    t.diagnostic(`cache over a paused replica and the primary: ${answers.length} answers, ${stale.length} stale (none settled), ${answers.filter((a) => a.settled).length} settled; reads ${JSON.stringify(db.readsBy())}`);
    assert.ok(stale.length > 0, 'some answers were computed on the paused replica');
    assert.ok(answers.some((a) => a.settled), 'answers computed on the primary are settled');
  } finally {
    if (paused) await replica.query('select pg_wal_replay_resume()').catch(() => {});
    await replica.end().catch(() => {});
    await app?.close();
    await db?.close().catch(() => {});
    await plain?.close();
    await truthDb.close();
    await writer.close();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

test('reads go to a streaming replica, survive its stop and lag, and come back to it', { skip, timeout: 180_000 }, async (t) => {
  const cluster = await startReplicaCluster(PRIMARY_PORT, REPLICA_PORT);
  const lines: string[] = [];
  let db: ReplicatedDb | undefined;
  let app: ReturnType<typeof createApp> | undefined;
  try {
    // the demo network on the primary, replayed on the replica
    const admin = createPostgresDb(testConfig({ DATABASE_URL: cluster.primaryUrl }));
    await migrate(admin);
    await seedDemo(admin, { scale: 0.2 });
    const demo = await readDemoInfo(admin);
    await admin.close();
    await cluster.caughtUp();

    const config = testConfig({
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICAS: REPLICA,
      HIERO_MIRROR_REST_DB_REPLICAS_MAXLAG: '1500ms',
      HIERO_MIRROR_REST_DB_REPLICAS_CHECKINTERVAL: '200ms',
    });
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line).msg) });
    db = openServingDb(config, { ...postgresOptionsFromConfig(config), readOnly: true }, logger) as ReplicatedDb;
    app = createApp(config, db, false);
    await app.listen({ port: SERVICE_PORT, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${SERVICE_PORT}`;
    const paths = demoExamples(demo!.facts).map((e) => e.path);
    assert.ok(paths.length >= 4);
    await until('the replica in the rotation', () => db!.replicas()[0]!.state === 'healthy');

    const traffic = load(base, paths, 6);
    try {
      await until('the load under way', () => traffic.statuses.length >= 60);
      const before = db.readsBy();
      assert.ok(before[REPLICA]! > 0, `the replica serves reads: ${JSON.stringify(before)}`);

      // the replica goes away mid-load
      const stoppedAt = Date.now();
      await cluster.stopReplica();
      await until('the replica out of the rotation', () => db!.replicas()[0]!.state === 'down');
      const whileDown = db.readsBy();
      await sleep(1000);
      assert.ok(db.readsBy().primary! > whileDown.primary!, 'the primary serves while the replica is down');
      assert.equal((await fetch(`${base}/health/readiness`)).status, 200, 'readiness stays green on the primary');

      // it comes back and is taken back
      await cluster.startReplica();
      await until('the replica back in the rotation', () => db!.replicas()[0]!.state === 'healthy');
      const back = db.readsBy()[REPLICA]!;
      await sleep(1000);
      assert.ok(db.readsBy()[REPLICA]! > back, 'reads go to the replica again');

      const failed = traffic.statuses.filter((s) => s.status !== 200);
      const total = traffic.statuses.filter((s) => s.at >= stoppedAt).length;
      t.diagnostic(`${traffic.statuses.length} requests, ${total} since the replica stopped, ${failed.length} failed; reads ${JSON.stringify(db.readsBy())}`);
      assert.ok(failed.length <= 1, `at most the one request in flight fails; ${failed.length} of ${total} since the stop did: ${JSON.stringify(failed.slice(0, 5))}`);
    } finally {
      await traffic.stop();
    }
    assert.equal(lines.filter((l) => l.startsWith(`replica ${REPLICA} is down`)).length, 1, lines.join('\n'));
    assert.equal(lines.filter((l) => l.startsWith(`replica ${REPLICA} is back in the rotation`)).length, 1, lines.join('\n'));

    const metrics = await (await fetch(`${base}/metrics`)).text();
    t.diagnostic(metrics.split('\n').filter((l) => l.startsWith('db_read')).join('; '));
    assert.match(metrics, new RegExp(`db_replica_healthy\\{replica="${REPLICA}"\\} 1`));
    assert.match(metrics, new RegExp(`db_replica_lag_seconds\\{replica="${REPLICA}"\\} \\d`));
    assert.match(metrics, new RegExp(`db_reads_total\\{target="${REPLICA}"\\} [1-9]`));

    // a replica that stops replaying falls behind, leaves the rotation, and comes back when it catches up
    const replica = new pg.Client({ connectionString: cluster.replicaUrl });
    const primary = new pg.Client({ connectionString: cluster.primaryUrl });
    await replica.connect();
    await primary.connect();
    try {
      await replica.query('select pg_wal_replay_pause()');
      await primary.query('create table lag_probe (n int); insert into lag_probe values (1)');
      await until('the replica out for lag', () => db!.replicas()[0]!.state === 'lagging', 10_000);
      assert.ok(db.replicas()[0]!.lagMs! > 1500);
      const primaryReads = db.readsBy().primary;
      assert.equal((await fetch(`${base}${paths[0]}`)).status, 200);
      assert.ok(db.readsBy().primary! > primaryReads!, 'the primary serves while the replica lags');
      await replica.query('select pg_wal_replay_resume()');
      await until('the replica back after catching up', () => db!.replicas()[0]!.state === 'healthy', 10_000);
    } finally {
      await replica.end();
      await primary.end().catch(() => {});
    }
    assert.ok(lines.some((l) => l.startsWith(`replica ${REPLICA} is `) && l.includes('behind the primary')), lines.join('\n'));

    await checkCacheFinality(t, cluster);
    await until('the replica back in the rotation after the cache check', () => db!.replicas()[0]!.state === 'healthy', 10_000);

    // the primary goes away: the replica serves, readiness stays green
    await cluster.stopPrimary();
    for (const path of paths) assert.equal((await fetch(`${base}${path}`)).status, 200, path);
    assert.equal((await fetch(`${base}/health/readiness`)).status, 200, 'readiness stays green on the replica');
  } finally {
    await app?.close();
    await db?.close().catch(() => {});
    await cluster.stop();
  }
});
