import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueueWaitLimit } from '../../../../src/http/server/load/limiter.ts';

interface Service {
  /** The pool's connections. */
  connections: number;
  /** ms a request holds a connection; a function of the time for a database that changes speed. */
  serviceMs: number | ((now: number) => number);
  /** Clients in a closed loop: each sends its next request when its answer comes. */
  clients: number;
  /** ms a shed client waits before it sends again (0: at once, 1000: as Retry-After asks). */
  retryMs: number;
}

/**
 * A pool simulated in steps of 1 ms: admitted requests wait in a FIFO for one of `connections`
 * connections (the limiter is told each wait), hold it `serviceMs`, and answer. Returns what the
 * last 10 s saw: answers per second, sheds, the admitted requests' mean and longest wait.
 */
function simulate(options: { min: number; max: number; maxWaitMs: number }, service: Service, seconds = 40) {
  const queue: Array<{ at: number }> = [];
  const limiter = new QueueWaitLimit({ ...options, oldestWaitMs: (now) => (queue.length > 0 && busyUntil.length >= service.connections ? now - queue[0]!.at : 0) });
  const busyUntil: number[] = [];
  const sendAt = new Map<number, number>(); // ms -> clients sending then
  sendAt.set(0, service.clients);
  const measureFrom = (seconds - 10) * 1000;
  let answered = 0;
  let shed = 0;
  let waitSum = 0;
  let waitMax = 0;
  let waits = 0;
  const later = (at: number, n = 1) => sendAt.set(at, (sendAt.get(at) ?? 0) + n);
  for (let now = 0; now < seconds * 1000; now++) {
    for (let i = busyUntil.length - 1; i >= 0; i--) {
      if (busyUntil[i]! > now) continue;
      busyUntil.splice(i, 1);
      limiter.release();
      if (now >= measureFrom) answered++;
      later(now);
    }
    const sending = sendAt.get(now) ?? 0;
    sendAt.delete(now);
    for (let i = 0; i < sending; i++) {
      if (limiter.tryAcquire(now)) queue.push({ at: now });
      else {
        if (now >= measureFrom) shed++;
        later(now + Math.max(1, service.retryMs));
      }
    }
    const serviceMs = typeof service.serviceMs === 'number' ? service.serviceMs : service.serviceMs(now);
    while (busyUntil.length < service.connections && queue.length > 0) {
      const { at } = queue.shift()!;
      limiter.waited(now, now - at);
      if (now >= measureFrom) {
        waitSum += now - at;
        waitMax = Math.max(waitMax, now - at);
        waits++;
      }
      busyUntil.push(now + serviceMs);
    }
    limiter.tick(now);
  }
  return { limit: limiter.limit, perSecond: answered / 10, shed, meanWaitMs: waitSum / Math.max(1, waits), maxWaitMs: waitMax };
}

// the defaults: a pool of 10 connections, 64 requests queued at most, statements may wait 1 s
const DEFAULTS = { min: 10, max: 74, maxWaitMs: 1000 };

test('a slow database that queues as any pool does is never shed from: 16 and 64 clients on 10 connections at 50 and 150 ms a request', () => {
  for (const serviceMs of [50, 150]) {
    for (const clients of [16, 64]) {
      const run = simulate(DEFAULTS, { connections: 10, serviceMs, clients, retryMs: 0 });
      assert.equal(run.shed, 0, `${clients} clients at ${serviceMs} ms: ${run.shed} shed (limit ${run.limit}, mean wait ${run.meanWaitMs.toFixed(0)} ms)`);
      assert.equal(run.limit, DEFAULTS.max);
      const capacity = (10 / serviceMs) * 1000;
      assert.ok(run.perSecond >= 0.95 * capacity, `${run.perSecond}/s of ${capacity}/s`);
    }
  }
});

test('a queue that would keep requests waiting longer than maxQueueWait is cut to about it, at full throughput', () => {
  // 500 ms a request: 64 clients on 10 connections would wait 2.7 s each
  for (const retryMs of [0, 1000]) {
    const run = simulate(DEFAULTS, { connections: 10, serviceMs: 500, clients: 64, retryMs });
    assert.ok(run.shed > 0, 'some are shed');
    assert.ok(run.meanWaitMs <= 1300, `retry ${retryMs}: mean wait ${run.meanWaitMs.toFixed(0)} ms (limit ${run.limit})`);
    assert.ok(run.perSecond >= 0.95 * 20, `retry ${retryMs}: ${run.perSecond}/s of 20/s`);
    assert.ok(run.limit >= DEFAULTS.min && run.limit < 40, `limit ${run.limit}`);
  }
});

test('overload on a fast database: the bound keeps the queue, the pool stays busy', () => {
  const run = simulate(DEFAULTS, { connections: 10, serviceMs: 3, clients: 1024, retryMs: 0 }, 20);
  assert.equal(run.limit, DEFAULTS.max, 'waits of about 20 ms: the limit stays at its bound');
  assert.ok(run.shed > 0);
  assert.ok(run.perSecond >= 0.95 * (10 / 3) * 1000, `${run.perSecond}/s`);
  assert.ok(run.maxWaitMs <= 30, `longest wait ${run.maxWaitMs} ms`);
});

test('after a slow spell the limit is back at its bound within seconds', () => {
  const run = simulate(DEFAULTS, { connections: 10, serviceMs: (now) => (now < 15_000 ? 500 : 20), clients: 64, retryMs: 1000 }, 30);
  assert.equal(run.limit, DEFAULTS.max);
  assert.equal(run.shed, 0, "none shed from 5 s after the database is fast again");
});

test('admission: refused at the limit, admitted again after a release; a drop cuts the limit at once; a queue nobody leaves is a standing wait', () => {
  const limiter = new QueueWaitLimit({ min: 2, max: 3, maxWaitMs: 100 });
  assert.equal(limiter.limit, 3, 'starts at its bound');
  assert.ok(limiter.tryAcquire(0) && limiter.tryAcquire(0) && limiter.tryAcquire(0));
  assert.equal(limiter.tryAcquire(0), false);
  limiter.release();
  assert.equal(limiter.inFlight, 2);
  assert.ok(limiter.tryAcquire(1));

  const cut = new QueueWaitLimit({ min: 10, max: 50, maxWaitMs: 100 });
  cut.tryAcquire(0);
  cut.release(true);
  cut.tick(100);
  assert.equal(cut.limit, 45);
  for (let i = 2; i < 40; i++) {
    cut.tryAcquire(i * 100);
    cut.release(true);
  }
  cut.tick(4000);
  assert.equal(cut.limit, 10, 'never below the minimum');

  let oldest = 0;
  const hung = new QueueWaitLimit({ min: 10, max: 74, maxWaitMs: 1000, oldestWaitMs: () => oldest });
  hung.tick(0);
  oldest = 400;
  hung.tick(100);
  assert.equal(hung.limit, 74, 'a wait within the bound');
  oldest = 4000;
  hung.tick(200);
  assert.equal(hung.limit, 10 + 64 * 0.5, 'the queued part halved at most per window');
  assert.equal(hung.standingWaitMs, 4000);

  assert.throws(() => new QueueWaitLimit({ min: 0, max: 5, maxWaitMs: 100 }));
  assert.throws(() => new QueueWaitLimit({ min: 1, max: 5, maxWaitMs: 0 }));
});
