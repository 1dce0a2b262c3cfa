/**
 * A connection that ends while a request holds it between two statements (pg_terminate_backend, as an
 * operator or a failover does): pg-pool listens for a client's 'error' event only while the client is
 * idle, so without a listener of our own the event was unhandled and ended the process (found by
 * bench/scenarios/faults.ts; the listener: poolDb in src/db/db.ts). Now the next statement fails as the
 * database being unavailable, the connection is not reused, and the pool serves the next request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Db, DatabaseUnavailableError } from '../../src/db/db.ts';
import { type Sql, planPerExecution, sql } from '../../src/db/sql.ts';
import { openTestDatabase } from '../support/database.ts';

const url = process.env.TEST_DATABASE_URL;
const skip = url ? false : 'needs TEST_DATABASE_URL';

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
  await sleep(200); // the server's FATAL reaches the idle client
}

/** In a session: its connection terminated after a first statement, then `next` on it; then `after` on the pool. */
async function terminatedMidSession(next: Sql, after: (db: Db) => Promise<void>): Promise<void> {
  const database = await openTestDatabase('postgres');
  try {
    const { db } = database;
    await assert.rejects(
      db.session(async (session) => {
        const [row] = await session.query<{ pid: number }>(sql`select pg_backend_pid() as pid`);
        await terminate(row!.pid);
        await session.query(next);
      }),
      DatabaseUnavailableError,
    );
    await after(db);
  } finally {
    await database.close();
  }
}

test('a session whose connection is terminated between two statements: a 503-type error, not a crash; the pool goes on', { skip }, () =>
  terminatedMidSession(sql`select 1 as one`, async (db) => {
    const [after] = await db.query<{ one: number }>(sql`select 1 as one`);
    assert.equal(after!.one, 1);
  }));

test('a statement planned per execution inside a session, its connection terminated before it: the same', { skip }, () =>
  terminatedMidSession(planPerExecution(sql`select 1 as one`), async (db) => {
    const rows = await Promise.all(Array.from({ length: 12 }, () => db.query<{ one: number }>(planPerExecution(sql`select 1 as one`))));
    assert.equal(rows.length, 12);
  }));
