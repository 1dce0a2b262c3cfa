import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.ts';
import { contractLookupRoute } from '../../src/contracts/contract/lookupRoute.ts';
import { rootCause } from '../../src/db/db.ts';
import { TABLES_READ } from '../../src/db/readiness.ts';
import { DatabaseStatus, registerDatabaseStatus } from '../../src/db/status.ts';
import { FIRST_DELAY_MS, MAX_DELAY_MS, nextDelay, watchDatabase } from '../../src/db/watch.ts';
import { buildApp } from '../../src/http/server/server.ts';
import { fakeDb } from '../support/database.ts';

/** A logger whose lines (level and msg) land in `lines`. */
function capture() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const until = async (condition: () => boolean, timeoutMs = 5_000) => {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

test('the retry delay starts at 0.5 s and doubles up to 30 s', () => {
  const delays = [FIRST_DELAY_MS];
  while (delays.length < 9) delays.push(nextDelay(delays.at(-1)!));
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(MAX_DELAY_MS, 30_000);
});

test('the watch: one line per change of state, backoff while nothing changes, ready at the end', async () => {
  const { lines, logger } = capture();
  // unreachable 5 times, then an empty database, then one table missing, then all there
  const answers: Array<Error | string[]> = [
    new Error('connect ECONNREFUSED'),
    new Error('connect ECONNREFUSED'),
    new Error('connect ECONNREFUSED'),
    new Error('connect ECONNREFUSED'),
    new Error('connect ECONNREFUSED'),
    [...TABLES_READ],
    [...TABLES_READ],
    ['contract_log'],
    [],
  ];
  const checkedAt: number[] = [];
  const db = fakeDb(async () => {
    checkedAt.push(performance.now());
    const answer = answers.shift() ?? [];
    if (answer instanceof Error) throw answer;
    return answer.map((name) => ({ name })) as never;
  });
  const watch = watchDatabase(db, { logger, describe: (err) => `refused (${rootCause(err).message})`, firstDelayMs: 20, maxDelayMs: 50 });
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db: fakeDb(), routes: [] });
  await watch.firstCheck(1_000);
  assert.equal(watch.status.condition.state, 'unreachable');
  await until(() => watch.status.started);
  watch.stop();
  await app.close();
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [
      [40, 'database unreachable: refused (connect ECONNREFUSED); retrying'],
      [40, `database reachable, schema missing: tables ${TABLES_READ.join(', ')}; retrying`],
      [40, 'database reachable, schema missing: tables contract_log; retrying'],
      [30, 'database reachable, schema present'],
    ],
  );
  const gaps = checkedAt.slice(1).map((t, i) => t - checkedAt[i]!);
  // 20, 40, 50, 50 (capped: not 80, 160) while unreachable; back to 20 after each change
  for (const [i, least] of [20, 40, 50, 50, 20, 20, 20].entries()) assert.ok(gaps[i]! >= least - 2, `gap ${i}: ${gaps[i]} >= ${least}`);
  assert.ok(gaps[3]! < 160, `capped: ${gaps[3]}`);
});

test('readiness answers 503 at once while the watch has not found the database ready; a successful statement makes it check now', async () => {
  let queries = 0;
  let up = false;
  const db = fakeDb(async () => {
    queries++;
    if (!up) throw new Error('connect ECONNREFUSED');
    return [];
  });
  const { lines, logger } = capture();
  const watch = watchDatabase(db, { logger, describe: () => 'down', firstDelayMs: 60_000 });
  await watch.firstCheck(1_000);
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db, routes: [contractLookupRoute], logger });
  try {
    const before = queries;
    const readiness = await app.inject('/health/readiness');
    assert.deepEqual([readiness.statusCode, readiness.body], [503, '{"status":"error"}']);
    assert.equal(queries, before, 'no query while not ready');
    const request = await app.inject('/api/v1/contracts/0.0.1001');
    assert.equal(request.statusCode, 503);
    assert.equal(request.headers['retry-after'], '1');

    up = true; // the next check is a minute away, but a request's success wakes the watch
    assert.equal((await app.inject('/api/v1/contracts/0.0.1001')).statusCode, 404);
    await until(() => watch.status.started);
    assert.equal((await app.inject('/health/readiness')).statusCode, 200);

    up = false; // an outage after the start: the statements report it, once
    for (let i = 0; i < 3; i++) assert.equal((await app.inject('/api/v1/contracts/0.0.1001')).statusCode, 503);
    assert.equal((await app.inject('/health/readiness')).statusCode, 503);
    up = true;
    assert.equal((await app.inject('/api/v1/contracts/0.0.1001')).statusCode, 404);
  } finally {
    watch.stop();
    await app.close();
  }
  assert.deepEqual(
    lines.filter((l) => l.msg.startsWith('database')).map((l) => l.msg),
    [
      'database unreachable: down; retrying',
      'database reachable, schema present',
      'database statements are failing: down; answering 503 until they succeed again',
      'database statements succeed again',
    ],
  );
});

test('a status registered for a database is the one readiness reads', async () => {
  let queries = 0;
  const db = fakeDb(async () => {
    queries++;
    return [];
  });
  registerDatabaseStatus(db, new DatabaseStatus({ state: 'schema-missing', tables: ['contract'] }));
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db, routes: [] });
  assert.equal((await app.inject('/health/readiness')).statusCode, 503);
  assert.equal(queries, 0);
  await app.close();
});
