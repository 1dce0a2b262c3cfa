import assert from 'node:assert/strict';
import { test } from 'node:test';
import type pg from 'pg';
import { timePoolQueue } from '../../src/db/poolQueue.ts';

type Callback = (err: Error | undefined, client: unknown, done: () => void) => void;

/** A pool whose checkouts are given (or fail) when the test says, in the order asked (as pg-pool's queue). */
function heldPool() {
  const waiting: Array<{ give: () => void; fail: (err: Error) => void }> = [];
  const client = { release() {} };
  const pool = {
    connect(callback?: Callback) {
      const promise = new Promise((resolve, reject) => waiting.push({ give: () => resolve(client), fail: reject }));
      if (!callback) return promise;
      promise.then((c) => callback(undefined, c, () => {}), (err: Error) => callback(err, undefined, () => {}));
      return undefined;
    },
  };
  return { pool: pool as unknown as pg.Pool, next: () => waiting.shift()! };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('each checkout is timed from connect to its connection, promise and callback forms; the oldest pending wait is known meanwhile', async () => {
  const { pool, next } = heldPool();
  const queue = timePoolQueue(pool);
  const waits: number[] = [];
  queue.observeWaits((ms) => waits.push(ms));
  assert.equal(queue.oldestWaitMs(performance.now()), 0, 'none waits');
  const first = pool.connect();
  await sleep(30);
  let second: unknown;
  pool.connect((err, client) => void (second = err ?? client));
  assert.ok(queue.oldestWaitMs(performance.now()) >= 25, 'the first has waited about 30 ms');
  next().give();
  await first;
  assert.equal(waits.length, 1);
  assert.ok(waits[0]! >= 25 && waits[0]! < 200, `first: ${waits[0]}`);
  const oldest = queue.oldestWaitMs(performance.now());
  assert.ok(oldest >= 0 && oldest < 25, `now the second is the oldest (${oldest} ms)`);
  await sleep(20);
  next().give();
  await sleep(5);
  assert.ok(second && !(second instanceof Error));
  assert.equal(waits.length, 2);
  assert.ok(waits[1]! >= 15, `second: ${waits[1]}`);
  assert.equal(queue.oldestWaitMs(performance.now()), 0);
});

test('a checkout that fails leaves the queue without a wait', async () => {
  const { pool, next } = heldPool();
  const queue = timePoolQueue(pool);
  const waits: number[] = [];
  queue.observeWaits((ms) => waits.push(ms));
  const failing = pool.connect();
  let failed: unknown;
  pool.connect((err) => void (failed = err));
  next().fail(new Error('timeout exceeded when trying to connect'));
  await assert.rejects(failing, /timeout/);
  next().fail(new Error('connection refused'));
  await sleep(5);
  assert.match(String(failed), /refused/);
  assert.deepEqual(waits, []);
  assert.equal(queue.oldestWaitMs(performance.now()), 0);
});
