import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { type StreamPlace, StreamLimits, isRefusal, pageBytesOf, pageSizeFor } from '../../../../src/http/server/streams/limits.ts';

const settings = { maxPerClient: 2, maxReaders: 3, maxConcurrentReads: 2, maxLive: 2, maxBufferedBytes: 262144 };

test('stream limits: per client address (429), readers and live streams per process (503); places given back once', () => {
  const limits = new StreamLimits(settings, new Registry());
  const a1 = limits.place('ndjson', 'a', true) as StreamPlace;
  const a2 = limits.place('events', 'a', false) as StreamPlace;
  const a3 = limits.place('ndjson', 'a', true);
  assert.ok(isRefusal(a3) && a3.status === 429);
  const b1 = limits.place('ndjson', 'b', true) as StreamPlace;
  const c1 = limits.place('ndjson', 'c', true) as StreamPlace;
  const d1 = limits.place('ndjson', 'd', true);
  assert.ok(isRefusal(d1) && d1.status === 503, 'three readers at most');
  const d2 = limits.place('events', 'd', false) as StreamPlace;
  const e1 = limits.place('events', 'e', false);
  assert.ok(isRefusal(e1) && e1.status === 503, 'two live streams at most');
  c1.stopReading();
  assert.ok(!isRefusal(limits.place('ndjson', 'f', true)), 'a stream that stopped reading leaves the readers');
  a1.close();
  a1.close();
  assert.equal(limits.count('ndjson'), 3);
  assert.ok(!isRefusal(limits.place('ndjson', 'a', true)), 'the client has a place again');
  for (const place of [a2, b1, c1, d2]) place.close();
});

test('stream limits: at most maxConcurrentReads reads at once, the others in order of arrival', async () => {
  const limits = new StreamLimits(settings, new Registry());
  const place = limits.place('ndjson', 'a', true) as StreamPlace;
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const gates: Array<() => void> = [];
  const reads = Promise.allSettled([0, 1, 2, 3, 4].map((i) =>
    place.read(async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(i);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
      if (i === 3) throw new Error('a failed read gives its turn back');
      return i;
    }),
  ));
  for (let n = 0; n < 5; n++) {
    await new Promise((resolve) => setImmediate(resolve));
    gates.shift()?.();
  }
  const results = await reads;
  assert.equal(peak, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4]);
  assert.equal(results[3]!.status, 'rejected');
  assert.equal((await place.read(async () => 'after')), 'after');
});

test('page sizes follow the items\' size, within their bounds', () => {
  assert.equal(pageBytesOf(262144), 262144 - 3 * 32768);
  assert.equal(pageBytesOf(16384), 32768);
  assert.equal(pageSizeFor(100, 130_000, 163_840, 1000), 126);
  assert.equal(pageSizeFor(100, 13_000_000, 163_840, 1000), 10, 'huge items: the minimum');
  assert.equal(pageSizeFor(100, 1000, 163_840, 1000), 1000, 'tiny items: the maximum');
  assert.equal(pageSizeFor(0, 0, 163_840, 500), 500);
  assert.equal(pageSizeFor(100, 13_000_000, 163_840, 5), 5, 'never above the maximum');
});
