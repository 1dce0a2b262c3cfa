/** Read replicas without a server: configuration, lag, failure classes, states and the read order, and routing on fake databases. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { parseReplicaAddress, replicaName } from '../../src/config/replicas.ts';
import { DatabaseUnavailableError, type Db } from '../../src/db/db.ts';
import { replicaConnection } from '../../src/db/replicasOpen.ts';
import {
  LsnHistory,
  isConnectionLoss,
  isRetryable,
  parseLsn,
  pinnedOrder,
  readOrder,
  replicaLagMs,
  stateAfter,
  stateLine,
} from '../../src/db/replicasHealth.ts';
import { withPin } from '../../src/db/pin.ts';
import { replicatedDb } from '../../src/db/replicas.ts';
import { fakeDb } from '../support/database.ts';

const config = (env: Record<string, string>) => loadConfig(env, '/nonexistent');
const PRIMARY = 'postgres://api:secret@db-primary:5432/mirror_node';

test('db.replicas from the environment: hosts share the primary URL, URLs stand alone; durations in parse-duration syntax', () => {
  const c = config({ DATABASE_URL: PRIMARY, DATABASE_REPLICAS: 'replica-a, replica-b:6432,postgres://ro:pw@replica-c/other', HIERO_MIRROR_REST_DB_REPLICAS_MAXLAG: '1m30s' });
  assert.deepEqual(c.db.replicas.hosts, [{ host: 'replica-a', port: 5432 }, { host: 'replica-b', port: 6432 }, { url: 'postgres://ro:pw@replica-c/other' }]);
  assert.equal(c.db.replicas.maxLagMs, 90_000);
  assert.equal(c.db.replicas.checkIntervalMs, 1000);
  assert.deepEqual(c.warnings, []);
  assert.equal(replicaConnection(c, c.db.replicas.hosts[1]!).url, 'postgres://api:secret@replica-b:6432/mirror_node');
  assert.equal(replicaConnection(c, c.db.replicas.hosts[2]!).url, 'postgres://ro:pw@replica-c/other');
  assert.equal(replicaName(c.db.replicas.hosts[2]!), 'replica-c:5432');
});

test('db.replicas as a YAML list, and the db.* keys of the primary for a host', async () => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'cqs-replica-config-'));
  writeFileSync(join(dir, 'application.yml'), 'hiero:\n  mirror:\n    rest:\n      db:\n        host: primary.local\n        replicas: ["[::1]:5433", replica.local]\n');
  const c = loadConfig({}, dir);
  rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(c.db.replicas.hosts, [{ host: '::1', port: 5433 }, { host: 'replica.local', port: 5432 }]);
  assert.equal(c.db.replicas.maxLagMs, 30_000);
  assert.equal(replicaName(c.db.replicas.hosts[0]!), '[::1]:5433');
  const own = replicaConnection(c, c.db.replicas.hosts[1]!);
  assert.equal(own.url, undefined);
  assert.equal(own.config.db.host, 'replica.local');
  assert.equal(own.config.db.name, 'mirror_node');
  assert.deepEqual(c.warnings, []);
});

test('db.primaryHost, as the reference: the primary is there and db.host becomes the first replica', () => {
  const c = config({ HIERO_MIRROR_REST_DB_HOST: 'reads.local', HIERO_MIRROR_REST_DB_PRIMARYHOST: 'writes.local', DATABASE_REPLICAS: 'r2' });
  assert.equal(c.db.host, 'writes.local');
  assert.deepEqual(c.db.replicas.hosts, [{ host: 'reads.local', port: 5432 }, { host: 'r2', port: 5432 }]);
  assert.deepEqual(c.warnings, []);
  const withUrl = config({ DATABASE_URL: PRIMARY, HIERO_MIRROR_REST_DB_PRIMARYHOST: 'writes.local' });
  assert.deepEqual(withUrl.db.replicas.hosts, []);
  assert.match(withUrl.warnings.join('\n'), /ignored: db.primaryHost/);
});

test('bad replica settings stop the start with one line naming the key', () => {
  assert.throws(() => config({ DATABASE_URL: PRIMARY, DATABASE_REPLICAS: 'not a host' }), /db\.replicas\.hosts entry "not a host"/);
  assert.throws(() => config({ DATABASE_URL: PRIMARY, DATABASE_REPLICAS: 'r:99999' }), ConfigError);
  assert.throws(() => config({ DATABASE_URL: PRIMARY, HIERO_MIRROR_REST_DB_REPLICAS_MAXLAG: 'soon' }), /db\.replicas\.maxLag/);
  assert.throws(() => config({ DATABASE_REPLICAS: 'r1' }), /db\.replicas needs PostgreSQL/);
  assert.throws(() => parseReplicaAddress('postgres://', 5432), ConfigError);
});

test('lag: the age of the oldest primary position not replayed; 0 when caught up or idle', () => {
  const history = new LsnHistory(10_000);
  history.add(1000, parseLsn('0/100'));
  history.add(2000, parseLsn('0/100')); // idle: no new sample
  history.add(3000, parseLsn('0/200'));
  history.add(4000, parseLsn('1/0'));
  assert.equal(history.size, 3);
  assert.equal(history.lagMs(parseLsn('1/0'), 60_000), 0, 'caught up, however long the primary stays idle');
  assert.equal(history.lagMs(parseLsn('0/1FF'), 5000), 2000);
  assert.equal(history.lagMs(parseLsn('0/50'), 5000), 4000);
  assert.ok(parseLsn('1/0') > parseLsn('0/FFFFFFFF'));
  const probe = { recovery: true, replay: '0/150', receive: '0/150', replayAge: 3600 };
  assert.equal(replicaLagMs(probe, history, 5000), 2000);
  // without samples (the primary is away): all received WAL replayed counts as current, else the replay clock
  const empty = new LsnHistory(10_000);
  assert.equal(replicaLagMs(probe, empty, 5000), 0);
  assert.equal(replicaLagMs({ ...probe, receive: '0/300' }, empty, 5000), 3_600_000);
  assert.equal(replicaLagMs({ recovery: false, replay: null, receive: null, replayAge: null }, history, 5000), 0);
  // old samples go, the newest stays
  history.add(20_000, parseLsn('2/0'));
  assert.equal(history.lagMs(parseLsn('0/0'), 21_000), 1000 + 16_000);
});

test('failures: a server gone is retried elsewhere; an error of the statement is not', () => {
  const pgError = (code: string, message = 'x') => new DatabaseUnavailableError(Object.assign(new Error(message), { code }));
  for (const err of [
    pgError('57P01', 'terminating connection due to administrator command'),
    pgError('ECONNREFUSED'),
    pgError('08006'),
    new DatabaseUnavailableError(new Error('Connection terminated unexpectedly')),
  ]) {
    assert.ok(isConnectionLoss(err), String(err));
    assert.ok(isRetryable(err));
  }
  assert.ok(!isConnectionLoss(pgError('40001')) && isRetryable(pgError('40001')), 'a recovery conflict is retried, the replica stays');
  for (const code of ['57014', '42P01', '22P02']) assert.ok(!isRetryable(pgError(code)), code);
});

test('states, their log lines, and the read order', () => {
  assert.equal(stateAfter({ ok: true, lagMs: 100 }, 1000), 'healthy');
  assert.equal(stateAfter({ ok: true, lagMs: 1001 }, 1000), 'lagging');
  assert.equal(stateAfter({ ok: false, why: 'refused' }, 1000), 'down');
  assert.equal(stateLine('r:1', 'healthy', 'healthy', { maxLagMs: 1 }), undefined);
  assert.match(stateLine('r:1', 'down', 'healthy', { maxLagMs: 1, lagMs: 0 })!.msg, /^replica r:1 is back in the rotation/);
  assert.match(stateLine('r:1', 'healthy', 'lagging', { maxLagMs: 30_000, lagMs: 45_000 })!.msg, /45\.0 s behind the primary \(db.replicas.maxLag 30\.0 s\)/);
  assert.equal(stateLine('r:1', 'healthy', 'down', { maxLagMs: 1, why: 'refused' })!.level, 'warn');
  assert.deepEqual(readOrder(['healthy', 'down', 'healthy', 'lagging'], 0), [0, 2, 'primary', 3]);
  assert.deepEqual(readOrder(['healthy', 'down', 'healthy', 'lagging'], 1), [2, 0, 'primary', 3]);
  assert.deepEqual(readOrder(['down', 'unknown'], 0), ['primary', 1]);
  assert.deepEqual(readOrder([], 0), ['primary']);
  // a pinned statement: its server first, unless it is down; then as the rotation
  assert.deepEqual(pinnedOrder(['healthy', 'healthy'], 0, 1), [1, 0, 'primary']);
  assert.deepEqual(pinnedOrder(['lagging', 'healthy'], 1, 0), [0, 1, 'primary']);
  assert.deepEqual(pinnedOrder(['down', 'healthy'], 0, 0), [1, 'primary']);
  assert.deepEqual(pinnedOrder(['healthy'], 0, 'primary'), ['primary', 0]);
});

/** A fake server: answers its name, or fails as told. */
function server(name: string) {
  const state = { fail: undefined as Error | undefined, probe: { recovery: true, replay: '0/10', receive: '0/10', replayAge: 1 }, calls: 0 };
  const db: Db = fakeDb(async (statement) => {
    state.calls++;
    if (state.fail) throw state.fail;
    const text = typeof statement === 'string' ? statement : statement.compile().text;
    if (text.includes('pg_current_wal_lsn')) return [{ lsn: '0/10' }] as never;
    if (text.includes('pg_is_in_recovery() as recovery')) return [state.probe] as never;
    return [{ from: name }] as never;
  });
  return { db, state };
}

test('routing: round robin over healthy replicas, one retry elsewhere when a replica goes away, the primary when none is left', async () => {
  const primary = server('primary');
  const a = server('a');
  const b = server('b');
  const logs: string[] = [];
  const logger = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) } as never;
  const db = replicatedDb(primary.db, [{ name: 'a', db: a.db }, { name: 'b', db: b.db }], { maxLagMs: 1000, checkIntervalMs: 60_000, logger });
  try {
    await db.checkNow();
    assert.deepEqual(db.replicas().map((r) => r.state), ['healthy', 'healthy']);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await db.query<{ from: string }>('select 1'))[0]!.from);
    assert.deepEqual(answers.sort(), ['a', 'a', 'b', 'b']);

    a.state.fail = new DatabaseUnavailableError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add((await db.query<{ from: string }>('select 1'))[0]!.from);
    assert.deepEqual([...seen], ['b'], 'no statement fails; a leaves the rotation at its first failure');
    assert.equal(db.replicas()[0]!.state, 'down');

    b.state.probe = { ...b.state.probe, replay: '0/5', receive: '0/5' };
    await db.checkNow();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await db.checkNow();
    assert.equal(db.replicas()[1]!.state, 'lagging');
    assert.equal((await db.query<{ from: string }>('select 1'))[0]!.from, 'primary');
    primary.state.fail = a.state.fail;
    assert.equal((await db.query<{ from: string }>('select 1'))[0]!.from, 'b', 'stale beats nothing when the primary is gone too');

    const syntax = new DatabaseUnavailableError(Object.assign(new Error('syntax error'), { code: '42601' }));
    b.state.fail = syntax;
    primary.state.fail = syntax;
    await assert.rejects(db.query('select 1'), /syntax error/);

    a.state.fail = undefined;
    b.state.fail = undefined;
    await db.checkNow();
    assert.equal(db.replicas()[0]!.state, 'healthy');
    assert.deepEqual(
      logs.filter((l) => l.startsWith('replica a')),
      ['replica a is in the rotation (lag 0.0 s)', logs.find((l) => l.startsWith('replica a is down'))!, 'replica a is back in the rotation (lag 0.0 s)'],
    );
    assert.ok(logs.includes('no replica is healthy: the primary serves the reads'));
    assert.ok(logs.includes('reads go to the replicas again'));
  } finally {
    await db.close();
  }
});

test('pins: the work under a pin reads from the server the rotation picked for it; a statement that runs elsewhere marks the pin and moves it', async () => {
  const primary = server('primary');
  const a = server('a');
  const b = server('b');
  const db = replicatedDb(primary.db, [{ name: 'a', db: a.db }, { name: 'b', db: b.db }], { maxLagMs: 60_000, checkIntervalMs: 60_000 });
  const from = async () => (await db.query<{ from: string }>('select 1'))[0]!.from;
  try {
    await db.checkNow();
    const first = db.pin();
    const second = db.pin();
    assert.deepEqual([first.server, second.server], ['a', 'b'], 'pins take the rotation in turn');
    const [onFirst, onSecond] = await Promise.all([
      withPin(first, () => Promise.all([from(), from(), from(), from()])),
      withPin(second, () => Promise.all([from(), from(), from(), from()])),
    ]);
    assert.deepEqual(onFirst, ['a', 'a', 'a', 'a']);
    assert.deepEqual(onSecond, ['b', 'b', 'b', 'b']);
    assert.ok(!first.failedOver && !second.failedOver);
    // statements under no pin (or another Db's) still go round
    const loose = [await from(), await from()];
    assert.deepEqual(loose.sort(), ['a', 'b']);
    const other = replicatedDb(server('other primary').db, [{ name: 'a', db: server('other a').db }], { maxLagMs: 60_000, checkIntervalMs: 60_000 });
    try {
      assert.deepEqual((await withPin(other.pin(), () => Promise.all([from(), from()]))).sort(), ['a', 'b']);
    } finally {
      await other.close();
    }

    // a goes away: the pin's next statement runs on b, and so do the ones after it, without trying a again
    a.state.fail = new DatabaseUnavailableError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
    const calls = a.state.calls;
    const moved = await withPin(first, async () => [await from(), await from(), await from()]);
    assert.deepEqual(moved, ['b', 'b', 'b']);
    assert.equal(a.state.calls, calls + 1);
    assert.equal(first.failedOver, true);
    assert.equal(first.server, 'a', 'the pin still names the server it was taken on');
    // a pin taken while a is down is on b, and stays whole
    const later = db.pin();
    assert.equal(later.server, 'b');
    await withPin(later, () => Promise.all([from(), from()]));
    assert.equal(later.failedOver, false);
  } finally {
    await db.close();
  }
});
