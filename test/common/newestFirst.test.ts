/**
 * newestFirst's two steps (src/contracts/common/newestFirst.ts): which parts it reads, with which
 * limits, and that the page is the one the whole range gives. The pagination tests of results and
 * logs check the same on the partitioned backends with real statements.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Part, newestFirst } from '../../src/contracts/common/newestFirst.ts';

/** Rows 1..n (timestamps), read newest first from an in-memory range, with every read recorded. */
function source(n: number) {
  const rows = Array.from({ length: n }, (_, i) => BigInt(i + 1));
  const reads: Array<{ part: Part | undefined; limit: number }> = [];
  const read = async (part: Part | undefined, limit: number) => {
    reads.push({ part, limit });
    const inPart = rows.filter((t) => part === undefined || (part.operator === 'gte' ? t >= part.value : t < part.value));
    return inPart.sort((a, b) => (a > b ? -1 : 1)).slice(0, limit);
  };
  const whole = (limit: number) => [...rows].reverse().slice(0, limit);
  return { read, reads, whole };
}

test('a page the recent part fills: one read, at or after the split', async () => {
  const { read, reads, whole } = source(100);
  assert.deepEqual(await newestFirst(80n, 'desc', 10, read), whole(10));
  assert.deepEqual(reads, [{ part: { operator: 'gte', value: 80n }, limit: 10 }]);
});

test('a page the recent part does not fill: the older part with the rest of the limit', async () => {
  const { read, reads, whole } = source(100);
  assert.deepEqual(await newestFirst(95n, 'desc', 10, read), whole(10));
  assert.deepEqual(reads, [
    { part: { operator: 'gte', value: 95n }, limit: 10 },
    { part: { operator: 'lt', value: 95n }, limit: 4 },
  ]);
});

test('a split after every row, and a range shorter than the page', async () => {
  const late = source(5);
  assert.deepEqual(await newestFirst(1000n, 'desc', 10, late.read), late.whole(10));
  assert.equal(late.reads.length, 2);
  const early = source(5);
  assert.deepEqual(await newestFirst(0n, 'desc', 10, early.read), early.whole(10));
  assert.equal(early.reads.length, 2);
});

test('oldest first, or no split: the whole range in one read', async () => {
  const asc = source(100);
  await newestFirst(80n, 'asc', 10, asc.read);
  assert.deepEqual(asc.reads, [{ part: undefined, limit: 10 }]);
  const none = source(100);
  assert.deepEqual(await newestFirst(undefined, 'desc', 10, none.read), none.whole(10));
  assert.deepEqual(none.reads, [{ part: undefined, limit: 10 }]);
});
