import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DatabaseUnavailableError, type Db } from '../../src/db/db.ts';
import { createEmbeddedDb } from '../../src/db/embedded.ts';
import { sql } from '../../src/db/sql.ts';

// The embedded database runs in a thread of its own (src/db/embeddedWorker.ts), reached through
// node-postgres (src/db/workerSocket.ts, src/db/embeddedLink.ts): a long statement leaves this
// thread's event loop free, and statements, errors, transactions and sessions behave as on PostgreSQL.

/** Burns CPU in the database for about a second or more (pg_sleep does not sleep in PGlite; the set-returning function in the select list streams its rows instead of storing them). */
const HEAVY = 'select count(*)::int as n from (select generate_series(1, 5000000)) as s';

let db: Db;
before(async () => {
  ({ db } = await createEmbeddedDb());
});
after(() => db.close());

/** A liveness-like answer over a real socket: the time from request to answer, in ms. */
function askTimed(server: Server): Promise<number> {
  const started = performance.now();
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/health/liveness', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    }).on('error', reject);
  });
}

test('a long statement leaves the event loop free: timers run on time and a socket is answered meanwhile', async () => {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    let answeredAt = 0;
    const statement = db.query<{ n: number }>(HEAVY);
    const probe = new Promise((resolve) => setTimeout(resolve, 50)).then(() => askTimed(server)).then((ms) => {
      answeredAt = performance.now();
      return ms;
    });
    const [rows, probeMs] = await Promise.all([statement, probe]);
    const took = performance.now() - started;
    clearInterval(timer);
    assert.deepEqual(rows, [{ n: 5_000_000 }]);
    assert.ok(took > 300, `the statement took ${took.toFixed(0)} ms: too short to tell`);
    // in this thread (before) the longest gap was the statement's whole time, and the socket waited for it
    assert.ok(longestGap < took / 3, `a timer waited ${longestGap.toFixed(0)} ms during a statement of ${took.toFixed(0)} ms`);
    assert.ok(answeredAt < started + took - 100, `the socket was answered after ${probeMs.toFixed(0)} ms, at the statement's end`);
  } finally {
    server.close();
  }
});

test('a failing statement rejects with DatabaseUnavailableError; the next one runs', async () => {
  await assert.rejects(db.query('select * from no_such_table'), (err: unknown) => err instanceof DatabaseUnavailableError && /no_such_table/.test((err as Error).message));
  assert.deepEqual(await db.query(sql`select ${'a'}::text as v`), [{ v: 'a' }]);
});

test('statements issued together all answer, each with its own rows, a failure among them its own', async () => {
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i === 7 ? db.query('select 1/0') : db.query(sql`select ${i}::int as i`))));
  results.forEach((result, i) => {
    if (i === 7) assert.equal(result.status, 'rejected');
    else assert.deepEqual(result.status === 'fulfilled' && result.value, [{ i }]);
  });
});

test('a session keeps its transaction and temporary tables; a rollback leaves nothing behind', async () => {
  await db.exec('create table if not exists embedded_t (x int)');
  await db.session(async (session) => {
    await session.exec('begin');
    await session.exec('create temporary table scratch (y int)');
    await session.query(sql`insert into embedded_t values (${1})`);
    await session.query(sql`insert into scratch values (${2})`);
    assert.deepEqual(await session.query('select (select count(*)::int from embedded_t) as t, (select count(*)::int from scratch) as s'), [{ t: 1, s: 1 }]);
    await assert.rejects(session.query('select 1/0'));
    await session.exec('rollback');
  });
  assert.deepEqual(await db.query('select count(*)::int as n from embedded_t'), [{ n: 0 }]);
  await db.session(async (session) => {
    await session.exec('begin');
    await session.query(sql`insert into embedded_t values (${3})`);
    await session.exec('commit');
  });
  assert.deepEqual(await db.query('select x from embedded_t'), [{ x: 3 }]);
});

test('a database that cannot be opened rejects with its reason, and the process goes on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-embedded-'));
  try {
    writeFileSync(join(dir, 'file'), 'not a directory');
    await assert.rejects(createEmbeddedDb(join(dir, 'file', 'data')), /ENOTDIR/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a dead database thread fails the statement in flight and every later one, and is told once', async () => {
  const exits: Error[] = [];
  const { db: doomed, link } = await createEmbeddedDb(undefined, { onExit: (err) => exits.push(err) });
  try {
    assert.deepEqual(await doomed.query('select 1 as one'), [{ one: 1 }]);
    const inFlight = doomed.query(HEAVY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await link.kill();
    await assert.rejects(inFlight, DatabaseUnavailableError);
    const started = performance.now();
    await assert.rejects(doomed.query('select 1'), DatabaseUnavailableError);
    await assert.rejects(doomed.session(async (s) => s.query('select 1')), DatabaseUnavailableError);
    assert.ok(performance.now() - started < 1000, 'later statements fail at once');
    assert.equal(exits.length, 1);
    assert.match(exits[0]!.message, /embedded database stopped/);
  } finally {
    await doomed.close();
  }
});
