import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdaptiveLimit, type LimiterOptions } from '../../src/http/server/plugins/limiter.ts';

/**
 * A service simulated in steps of 10 ms: `capacity` requests are worked on at once, each for
 * `serviceMs`; beyond that they share the capacity (latency grows with the queue). `demand` clients
 * always send (as many in flight as the limit admits, up to `demand`). Returns the limit at the
 * end, the throughput and the mean latency of the last 10 s.
 */
function simulate(options: LimiterOptions, service: { capacity: number; serviceMs: number; demand?: number }, seconds = 60) {
  const limiter = new AdaptiveLimit(options);
  const { capacity, serviceMs, demand = Infinity } = service;
  const STEP = 10;
  let now = 0;
  let done = 0;
  let latencySum = 0;
  let carry = 0;
  const measureFrom = (seconds - 10) * 1000;
  for (; now < seconds * 1000; now += STEP) {
    while (limiter.inFlight < Math.min(demand, 100_000) && limiter.tryAcquire(now));
    const inFlight = limiter.inFlight;
    const latency = serviceMs * Math.max(1, inFlight / capacity);
    // requests finishing in this step: throughput inFlight / latency per ms
    carry += (inFlight / latency) * STEP;
    const finishing = Math.floor(carry);
    carry -= finishing;
    for (let i = 0; i < finishing && limiter.inFlight > 0; i++) {
      limiter.release(now, latency);
      if (now >= measureFrom) {
        done++;
        latencySum += latency;
      }
    }
  }
  return { limit: limiter.limit, perSecond: done / 10, meanMs: latencySum / Math.max(1, done), capacityPerSecond: (capacity / serviceMs) * 1000 };
}

const defaults = { initial: 10, min: 10, max: 2000, targetMs: 0 };

test('the limit settles where the service is busy but requests hardly queue: full throughput, latency within 2.5 times the unloaded', () => {
  for (const [capacity, serviceMs] of [[40, 10], [12, 20], [200, 20]] as const) {
    const run = simulate(defaults, { capacity, serviceMs });
    assert.ok(run.perSecond >= 0.95 * run.capacityPerSecond, `capacity ${capacity}: ${run.perSecond}/s of ${run.capacityPerSecond}/s (limit ${run.limit})`);
    assert.ok(run.meanMs <= 2.5 * serviceMs, `capacity ${capacity}: mean ${run.meanMs.toFixed(1)} ms (limit ${run.limit})`);
    assert.ok(run.limit < defaults.max, 'never runs to the bound');
  }
});

test('a big machine: the limit grows to it within seconds; a small one: it stays small', () => {
  const big = simulate({ ...defaults, max: 10_000 }, { capacity: 500, serviceMs: 10 }, 40);
  assert.ok(big.limit >= 500 && big.limit <= 1000, `big: limit ${big.limit}`);
  assert.ok(big.perSecond >= 0.95 * big.capacityPerSecond);
  const small = simulate({ initial: 1, min: 1, max: 2000, targetMs: 0 }, { capacity: 2, serviceMs: 10 });
  assert.ok(small.limit >= 2 && small.limit <= 5, `small: limit ${small.limit}`);
  assert.ok(small.perSecond >= 0.95 * small.capacityPerSecond);
});

test('the latency target caps the mean latency; a service slower than the target alone gets the minimum', () => {
  const targeted = simulate({ ...defaults, targetMs: 30, tolerance: 100 }, { capacity: 20, serviceMs: 10 });
  assert.ok(targeted.meanMs <= 36, `mean ${targeted.meanMs.toFixed(1)} ms with a 30 ms target (limit ${targeted.limit})`);
  const untargeted = simulate({ ...defaults, tolerance: 100 }, { capacity: 20, serviceMs: 10 });
  assert.ok(untargeted.meanMs > 100, `without the target a lax tolerance lets the queue grow (${untargeted.meanMs.toFixed(1)} ms)`);
  const slow = simulate({ ...defaults, targetMs: 100 }, { capacity: 20, serviceMs: 200 });
  assert.equal(slow.limit, defaults.min);
});

test('a load that asks for less than half the limit does not raise it', () => {
  const run = simulate(defaults, { capacity: 100, serviceMs: 10, demand: 5 });
  assert.equal(run.limit, 10);
});

test('admission: refused at the limit, admitted again after a release; a drop cuts the limit at once', () => {
  const limiter = new AdaptiveLimit({ initial: 3, min: 2, max: 10, targetMs: 0 });
  assert.ok(limiter.tryAcquire(0) && limiter.tryAcquire(0) && limiter.tryAcquire(0));
  assert.equal(limiter.tryAcquire(0), false);
  limiter.release(1, 5);
  assert.equal(limiter.inFlight, 2);
  assert.ok(limiter.tryAcquire(1));
  const cut = new AdaptiveLimit({ initial: 50, min: 10, max: 100, targetMs: 0 });
  cut.tryAcquire(0);
  cut.release(200, undefined, true);
  assert.equal(cut.limit, 45);
  for (let i = 0; i < 40; i++) {
    cut.tryAcquire(i * 200);
    cut.release(i * 200 + 150, undefined, true);
  }
  assert.equal(cut.limit, 10, 'never below the minimum');
  assert.throws(() => new AdaptiveLimit({ initial: 1, min: 0, max: 5, targetMs: 0 }));
});

test('with a latency target, queueing within it is allowed: the limit stays at its bound while answers take less than the target', () => {
  // a pool of 10 connections, 5 ms a statement, 74 in flight at most (10 + maxQueuedRequests 64): 37 ms at the bound
  const within = simulate({ initial: 74, min: 10, max: 74, targetMs: 100 }, { capacity: 10, serviceMs: 5 });
  assert.equal(within.limit, 74, `limit ${within.limit}, mean ${within.meanMs.toFixed(1)} ms`);
  // the same pool at 20 ms a statement: 148 ms at the bound, so the limit comes down to about the target's 50
  const slower = simulate({ initial: 74, min: 10, max: 74, targetMs: 100 }, { capacity: 10, serviceMs: 20 });
  assert.ok(slower.limit >= 40 && slower.limit <= 60, `limit ${slower.limit}`);
  assert.ok(slower.meanMs <= 120, `mean ${slower.meanMs.toFixed(1)} ms with a 100 ms target (it hovers around it)`);
  assert.ok(slower.perSecond >= 0.95 * slower.capacityPerSecond, `${slower.perSecond}/s of ${slower.capacityPerSecond}/s`);
});
