/**
 * Statements of one event-loop turn share one connection and one write (src/db/statementBatch.ts):
 * which connection each statement ran on (pg_backend_pid), that every statement still gets its own
 * answer or error, that a failed connection fails its batch and is not reused, and that the
 * connections go back to the pool.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { type Db, DatabaseUnavailableError } from '../../src/db/db.ts';
import { createPostgresDb, postgresOptionsFromConfig } from '../../src/db/postgres.ts';

const url = process.env.TEST_DATABASE_URL;
const skip = url ? false : 'needs TEST_DATABASE_URL';

function openDb(batchStatements: number): Db {
  const config = loadConfig({ DATABASE_URL: url! }, '/nonexistent');
  return createPostgresDb(config, { ...postgresOptionsFromConfig(config), batchStatements });
}

interface PidRow {
  pid: number;
  n: number;
}

const pidOf = (db: Db, n: number) => db.query<PidRow>('select pg_backend_pid() as pid, $1::int as n', [n]).then((rows) => rows[0]!);

test('db.pool.batchStatements: 8 unless set, 1 turns batching off, 0 is refused', () => {
  assert.equal(loadConfig({}, '/nonexistent').db.pool.batchStatements, 8);
  assert.equal(loadConfig({ HIERO_MIRROR_REST_DB_POOL_BATCHSTATEMENTS: '1' }, '/nonexistent').db.pool.batchStatements, 1);
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_DB_POOL_BATCHSTATEMENTS: '0' }, '/nonexistent'), /batchStatements/);
});

test('the statements of one turn run on one connection, each with its own answer, in order', { skip }, async () => {
  const db = openDb(8);
  try {
    await pidOf(db, 0); // one connection open
    const rows = await Promise.all([1, 2, 3, 4, 5].map((n) => pidOf(db, n)));
    assert.deepEqual(
      rows.map((r) => r.n),
      [1, 2, 3, 4, 5],
    );
    assert.equal(new Set(rows.map((r) => r.pid)).size, 1, 'one connection');
    assert.deepEqual(db.poolStats(), { total: 1, idle: 1, waiting: 0 }, 'back in the pool');
  } finally {
    await db.close();
  }
});

test('a batch takes at most batchStatements statements; the next turn starts another batch', { skip }, async () => {
  const db = openDb(2);
  try {
    const rows = await Promise.all([1, 2, 3, 4, 5].map((n) => pidOf(db, n)));
    const pids = rows.map((r) => r.pid);
    assert.equal(new Set(pids).size, 3, 'batches of 2, 2 and 1, in flight at once');
    assert.equal(pids[0], pids[1]);
    assert.equal(pids[2], pids[3]);
    assert.notEqual(pids[1], pids[2]);
    // statements of different turns, while the first is still running, do not share its connection
    const slow = db.query<{ pid: number }>('select pg_backend_pid() as pid, pg_sleep(0.3)');
    await nextTurn();
    await nextTurn();
    const [quick] = await db.query<{ pid: number }>('select pg_backend_pid() as pid');
    const [sleeper] = await slow;
    assert.notEqual(quick!.pid, sleeper!.pid);
  } finally {
    await db.close();
  }
});

test('batchStatements 1: every statement on a connection of its own', { skip }, async () => {
  const db = openDb(1);
  try {
    const rows = await Promise.all([1, 2, 3].map((n) => db.query<PidRow>('select pg_backend_pid() as pid, $1::int as n, pg_sleep(0.05)', [n])));
    assert.equal(new Set(rows.map((r) => r[0]!.pid)).size, 3);
  } finally {
    await db.close();
  }
});

test('an error answered for one statement fails only that statement, and the connection stays in use', { skip }, async () => {
  const db = openDb(8);
  try {
    const [first] = await db.query<{ pid: number }>('select pg_backend_pid() as pid');
    const results = await Promise.allSettled([pidOf(db, 1), db.query('select 1 / $1::int as x', [0]), pidOf(db, 3)]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[2].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.ok((results[1] as PromiseRejectedResult).reason instanceof DatabaseUnavailableError);
    assert.match(String((results[1] as PromiseRejectedResult).reason.message), /division by zero/);
    assert.equal((results[0] as PromiseFulfilledResult<PidRow>).value.pid, first!.pid);
    assert.equal((await pidOf(db, 4)).pid, first!.pid, 'the connection is reused');
  } finally {
    await db.close();
  }
});

test('a connection that ends under a batch fails every statement of it, and is not reused', { skip, timeout: 30_000 }, async () => {
  const db = openDb(8);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { pid } = await pidOf(db, 0);
    const batch = Promise.allSettled([db.query('select pg_sleep(5)'), pidOf(db, 1), pidOf(db, 2)]);
    await sleep(200);
    await admin.query('select pg_terminate_backend($1::int)', [pid]); // ::int: Citus adds a bigint overload
    const results = await batch;
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    for (const r of results) assert.ok((r as PromiseRejectedResult).reason instanceof DatabaseUnavailableError);
    const next = await pidOf(db, 3);
    assert.notEqual(next.pid, pid, 'a new connection');
    assert.equal(db.poolStats().total, 1, 'the ended one was discarded');
  } finally {
    await admin.end();
    await db.close();
  }
});
