/**
 * When the response cache may keep an answer as settled, on fake databases: only when the newest
 * record file that makes it settled was read before the answer's data, on the server that computed
 * the answer. The importer committing a record file between the data and that read, two replicas
 * at different record files, and a statement that failed over to another server must never leave
 * an answer kept as settled that could still gain rows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import pino from 'pino';
import type { Db } from '../../../src/db/db.ts';
import { DatabaseUnavailableError } from '../../../src/db/db.ts';
import { replicatedDb } from '../../../src/db/replicas.ts';
import type { ComputedAnswer } from '../../../src/http/answer/answer.ts';
import { settledCompute } from '../../../src/http/cache/settledCompute.ts';
import { type ResponseCache, createResponseCache } from '../../../src/http/cache/responseCache.ts';
import { parseQuery } from '../../../src/http/request/query.ts';
import { testConfig } from '../../support/app.ts';
import { fakeDb } from '../../support/database.ts';

/** A fake server: the newest record file it holds, the statements it answered, and a failure to throw on data statements. */
interface FakeServer {
  name: string;
  db: Db;
  /** consensus_end of its newest record file; undefined: none. */
  newest: bigint | undefined;
  /** Record-file reads it answered. */
  settledReads: number;
  /** Thrown by its data statements (not by probes or record-file reads) while set. */
  failData: Error | undefined;
  /** Runs after each data statement it answered (the importer committing meanwhile). */
  afterData: (() => void) | undefined;
}

function server(name: string, newest: bigint | undefined): FakeServer {
  const state: FakeServer = { name, db: undefined as unknown as Db, newest, settledReads: 0, failData: undefined, afterData: undefined };
  state.db = fakeDb(async (statement) => {
    const text = typeof statement === 'string' ? statement : statement.compile().text;
    if (text.includes('pg_current_wal_lsn')) return [{ lsn: '0/10' }] as never;
    if (text.includes('pg_is_in_recovery() as recovery')) return [{ recovery: true, replay: '0/10', receive: '0/10', replayAge: 0 }] as never;
    if (text.includes('from record_file')) {
      state.settledReads++;
      return (state.newest === undefined ? [] : [{ number: '7', consensus_end: state.newest.toString() }]) as never;
    }
    if (state.failData) throw state.failData;
    state.afterData?.();
    return [{ from: name }] as never;
  });
  return state;
}

const GONE = new DatabaseUnavailableError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));

function cacheOn(db: Db): ResponseCache {
  const config = testConfig({
    HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true',
    // no Redis: the in-process tier alone
    HIERO_MIRROR_REST_REDIS_URI: 'redis://127.0.0.1:1',
    HIERO_MIRROR_REST_REDIS_MAXBACKOFF: '60000',
  });
  return createResponseCache({ config, db, logger: pino({ enabled: false }), version: 'test' });
}

/** What one answer was computed from, and whether the cache kept it as settled. */
interface Outcome {
  /** The servers that answered its data statements, in order. */
  servers: string[];
  settled: boolean;
}

let requests = 0;

/** The most record-file reads one server may have had since `started` (one per second). */
const readsAllowed = (started: number) => 1 + Math.floor((Date.now() - started) / 1000);

/** Asks `cache` for a fresh answer (its own key) whose route reads `statements` times and declares `settledAfter`. */
async function ask(cache: ResponseCache, db: Db, settledAfter: bigint, statements = 1): Promise<Outcome> {
  const kept = async () => {
    const metric = await cache.metrics.registry.getSingleMetric('response_cache_computed_total')!.get();
    return metric.values.find((v) => v.labels.kept === 'immutable')?.value ?? 0;
  };
  const before = await kept();
  const servers: string[] = [];
  const compute = async (): Promise<ComputedAnswer> => {
    for (let i = 0; i < statements; i++) servers.push((await db.query<{ from: string }>('select data'))[0]!.from);
    const body = Buffer.from(JSON.stringify(servers));
    return { status: 200, body, etag: 'W/"1"', cacheControl: 'public, max-age=10', settledAfter };
  };
  await cache.answer({ path: `/request/${++requests}`, query: parseQuery(''), linkBase: '' }, compute);
  return { servers, settled: (await kept()) > before };
}

test('one database: a record file the importer commits after the data statement makes nothing settled', async () => {
  const primary = server('primary', 100n);
  const cache = cacheOn(primary.db);
  const started = Date.now();
  try {
    // the answer's range ends at 150; the importer commits the record file ending at 200 (with rows
    // in that range) just after the answer's data statement ran
    primary.afterData = () => (primary.newest = 200n);
    assert.equal((await ask(cache, primary.db, 150n)).settled, false, 'the answer lacks the rows of the record file committed after its data');
    primary.afterData = undefined;
    // the bound read before that answer (100) still makes what lies at or below it settled, without another read
    assert.equal((await ask(cache, primary.db, 100n)).settled, true);
    assert.ok(primary.settledReads <= readsAllowed(started), 'no round trip while the memo is fresh');
  } finally {
    await cache.close();
  }
});

test('two replicas at different record files: an answer is settled only on the bound of the server that computed it, all its statements on that server', async () => {
  const primary = server('primary', 300n);
  const behind = server('behind', 100n);
  const ahead = server('ahead', 300n);
  const db = replicatedDb(primary.db, [{ name: 'behind', db: behind.db }, { name: 'ahead', db: ahead.db }], { maxLagMs: 60_000, checkIntervalMs: 60_000 });
  const cache = cacheOn(db);
  const started = Date.now();
  try {
    await db.checkNow();
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 8; i++) outcomes.push(await ask(cache, db, 200n, 3));
    for (const { servers } of outcomes) assert.equal(new Set(servers).size, 1, `one request's statements on one server: ${servers.join(', ')}`);
    const on = (name: string) => outcomes.filter((o) => o.servers[0] === name);
    assert.ok(on('behind').length > 0 && on('ahead').length > 0, 'the rotation still spreads requests');
    assert.ok(on('behind').every((o) => !o.settled), 'never settled beyond the bound of the replica that computed it');
    assert.ok(on('ahead').every((o) => o.settled));
    // within the behind replica's own bound its answers are settled
    const within: Outcome[] = [];
    for (let i = 0; i < 4; i++) within.push(await ask(cache, db, 100n));
    assert.ok(within.every((o) => o.settled));
    const allowed = readsAllowed(started);
    assert.ok(behind.settledReads <= allowed && ahead.settledReads <= allowed && primary.settledReads === 0, 'one read of each server per second at most');
  } finally {
    await cache.close();
    await db.close();
  }
});

test('a request whose statement failed over to another server is not settled, not even one settled at once', async () => {
  for (const settledAfter of [50n, 0n]) {
    const primary = server('primary', 300n);
    const a = server('a', 300n);
    const b = server('b', 300n);
    const db = replicatedDb(primary.db, [{ name: 'a', db: a.db }, { name: 'b', db: b.db }], { maxLagMs: 60_000, checkIntervalMs: 60_000 });
    const cache = cacheOn(db);
    try {
      await db.checkNow();
      // a answers the bound, then goes away before the data: the statement runs again on b
      a.failData = GONE;
      const failedOver = await ask(cache, db, settledAfter);
      assert.deepEqual(failedOver.servers, ['b']);
      assert.equal(failedOver.settled, false, `settledAfter ${settledAfter}: data from another server than the bound's`);
      // the next request, whole on b, is settled again
      const next = await ask(cache, db, settledAfter);
      assert.deepEqual(next.servers, ['b']);
      assert.equal(next.settled, true);
    } finally {
      await cache.close();
      await db.close();
    }
  }
});

test('a bound already read is not waited for again: during a cut, an answer runs at once on the older bound while the next read hangs', async () => {
  const primary = server('primary', 100n);
  let hang = false;
  const db = fakeDb(async (statement, values) => {
    const text = typeof statement === 'string' ? statement : statement.compile().text;
    if (hang && text.includes('from record_file')) return new Promise<never>(() => {});
    return primary.db.query(statement, values);
  });
  const compute = settledCompute(db, 5);
  const first = await compute(async () => 'first');
  assert.equal(first.basis.settledThrough, 100n, 'the first answer waits for the first read');
  hang = true;
  primary.newest = 200n;
  await setTimeout(10);
  const started = performance.now();
  const during = await compute(async () => 'during the cut');
  assert.ok(performance.now() - started < 100, 'answered without waiting for the hung read');
  assert.equal(during.basis.settledThrough, 100n, 'on the bound read before: older, still a bound of the data read after it');
});
