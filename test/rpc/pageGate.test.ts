/** PageGate (src/rpc/pageGate.ts): at most `slots` page reads at once, the oldest walk's first, each slot given back once. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageGate, pageTurn } from '../../src/rpc/pageGate.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('PageGate: slots at once; waiting reads by the age of their walk, then by arrival; a slot given back twice counts once', async () => {
  const gate = new PageGate(2);
  const first = await gate.enter(50);
  const second = await gate.enter(60);
  assert.deepEqual(gate.load, { active: 2, waiting: 0 });
  const entered: string[] = [];
  const wait = (name: string, since: number) => gate.enter(since).then((leave) => (entered.push(name), leave));
  // arrivals out of age order: newest walk first; two of the same age keep their order
  const reads = [wait('young', 300), wait('old', 100), wait('middle', 200), wait('old-again', 100), wait('oldest', 10)];
  await tick();
  assert.deepEqual(entered, []);
  assert.deepEqual(gate.load, { active: 2, waiting: 5 });
  first();
  first();
  await tick();
  assert.deepEqual(entered, ['oldest'], 'one slot given back (twice): one read let in');
  second();
  await tick();
  assert.deepEqual(entered, ['oldest', 'old']);
  const leaves = await Promise.all(reads.slice(1, 2).concat(reads.slice(4)));
  for (const leave of leaves) leave();
  await tick();
  assert.deepEqual(entered, ['oldest', 'old', 'old-again', 'middle']);
  for (const leave of await Promise.all([reads[2]!, reads[3]!])) leave();
  await tick();
  assert.deepEqual(entered, ['oldest', 'old', 'old-again', 'middle', 'young']);
  (await reads[0]!)();
  assert.deepEqual(gate.load, { active: 0, waiting: 0 });
  // free slots: entered at once, in turn
  const again = await gate.enter(1);
  assert.deepEqual(gate.load, { active: 1, waiting: 0 });
  again();
  assert.deepEqual(gate.load, { active: 0, waiting: 0 });
});

test('PageGate: 1,000 waiting reads of random ages come in by age, one slot at a time', async () => {
  const gate = new PageGate(1);
  const hold = await gate.enter(0);
  const ages = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
  const order: number[] = [];
  const reads = ages.map((age) => gate.enter(age).then((leave) => (order.push(age), leave())));
  hold();
  await Promise.all(reads);
  assert.deepEqual(order, [...ages].sort((a, b) => a - b));
  assert.deepEqual(gate.load, { active: 0, waiting: 0 });
});

test('pageTurn: a walk moves back by the square of its pages up to 50 (5 s), then 100 ms a page', () => {
  assert.deepEqual([0, 1, 5, 20, 50, 51, 100, 453].map((pages) => pageTurn(1000, pages) - 1000), [0, 2, 50, 800, 5000, 5100, 10_000, 45_300]);
  // a walk that has read more never comes before the same walk with fewer pages
  for (let pages = 0; pages < 1000; pages++) assert.ok(pageTurn(0, pages + 1) > pageTurn(0, pages));
});
