import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loopDelayMonitor } from '../../bench/lib/loopDelay.ts';

test("a load generator's loop lateness: its timer's period is not counted, a blocked loop is", async () => {
  const period = 10;
  const stop = loopDelayMonitor(period);
  await sleep(120);
  const blockedUntil = performance.now() + 60;
  while (performance.now() < blockedUntil); // the loop held for 60 ms
  await sleep(60);
  const delay = stop();
  assert.ok(delay.max >= 40, `a 60 ms block shows as lateness (max ${delay.max} ms)`);
  assert.ok(delay.p50 < period, `the period itself is taken off (p50 ${delay.p50} ms, period ${period} ms)`);
  assert.ok(delay.p50 >= 0 && delay.p50 <= delay.p99 && delay.p99 <= delay.max);
});
