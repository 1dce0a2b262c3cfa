/**
 * newestFirst's two steps (src/contracts/common/newestFirst.ts): which parts it reads, with which
 * limits, and that the page is the one the whole range gives. The pagination tests of results and
 * logs check the same on the partitioned backends with real statements.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Part, newestFirst } from '../../../src/contracts/common/newestFirst.ts';
import { fakeDb } from '../../support/database.ts';

/** A split at `at` under a ceiling above every row. */
const split = (at: bigint) => ({ at, ceiling: 1000n });

/** Rows 1..n (timestamps), read newest first from an in-memory range, with every read recorded. */
function source(n: number, first = 1, asc = false) {
  const rows = Array.from({ length: n }, (_, i) => BigInt(first + i));
  const reads: Array<{ part: Part | undefined; limit: number }> = [];
  const read = async (part: Part | undefined, limit: number) => {
    reads.push({ part, limit });
    const inPart = rows.filter(
      (t) =>
        part === undefined ||
        ((part.from === undefined || t >= part.from) && (part.before === undefined || t < part.before) && (part.through === undefined || t <= part.through)),
    );
    return inPart.sort((a, b) => (a > b === asc ? 1 : -1)).slice(0, limit);
  };
  const whole = (limit: number) => [...rows].reverse().slice(0, limit);
  return { read, reads, whole };
}

test('a page the recent part fills: one read, at or after the split', async () => {
  const { read, reads, whole } = source(100);
  assert.deepEqual(await newestFirst(split(80n), 'desc', 10, read), whole(10));
  assert.deepEqual(reads, [{ part: { from: 80n, through: 1000n }, limit: 10 }]);
});

test('a page the recent part does not fill: the older part with the rest of the limit', async () => {
  const { read, reads, whole } = source(100);
  assert.deepEqual(await newestFirst(split(95n), 'desc', 10, read), whole(10));
  assert.deepEqual(reads, [
    { part: { from: 95n, through: 1000n }, limit: 10 },
    { part: { before: 95n }, limit: 4 },
  ]);
});

test('a split after every row, and a range shorter than the page', async () => {
  const late = source(5);
  assert.deepEqual(await newestFirst(split(1000n), 'desc', 10, late.read), late.whole(10));
  assert.equal(late.reads.length, 2);
  const early = source(5);
  assert.deepEqual(await newestFirst(split(0n), 'desc', 10, early.read), early.whole(10));
  assert.equal(early.reads.length, 2);
});

test('oldest first without history: the whole range under the ceiling in one read; no split: the whole range', async () => {
  const asc = source(100);
  await newestFirst(split(80n), 'asc', 10, asc.read);
  assert.deepEqual(asc.reads, [{ part: { through: 1000n }, limit: 10 }]);
  const unsplit = source(100);
  await newestFirst(undefined, 'asc', 10, unsplit.read, { db: fakeDb(), key: 'k', open: true, timestampOf: (t: bigint) => t });
  assert.deepEqual(unsplit.reads, [{ part: undefined, limit: 10 }]);
  const none = source(100);
  assert.deepEqual(await newestFirst(undefined, 'desc', 10, none.read), none.whole(10));
  assert.deepEqual(none.reads, [{ part: undefined, limit: 10 }]);
});

test('history: an open page that sees every older row keeps where they start, and later pages read from there', async () => {
  const db = fakeDb();
  const history = (open: boolean) => ({ db, key: 'logs:7', open, timestampOf: (t: bigint) => t });
  // rows 40..50, split at 48: the older part holds 40..47
  const a = source(11, 40);
  assert.deepEqual(await newestFirst(split(48n), 'desc', 25, a.read, history(true)), a.whole(25));
  assert.deepEqual(a.reads[1], { part: { before: 48n }, limit: 22 });
  // the next page of the key reads the older part from the first row only
  const b = source(11, 40);
  assert.deepEqual(await newestFirst(split(49n), 'desc', 25, b.read, history(false)), b.whole(25));
  assert.deepEqual(b.reads[1], { part: { from: 40n, before: 49n }, limit: 23 });
  // a page whose older part is full learns nothing (rows may lie before what it saw)
  const c = source(11, 40);
  await newestFirst(split(48n), 'desc', 5, c.read, { ...history(true), key: 'logs:8' });
  const d = source(11, 40);
  await newestFirst(split(48n), 'desc', 25, d.read, { ...history(false), key: 'logs:8' });
  assert.deepEqual(d.reads[1], { part: { before: 48n }, limit: 22 });
});

test('history: a key with no rows before the split skips the older part until the split passes it', async () => {
  const db = fakeDb();
  const history = { db, key: 'results:top:9', open: true, timestampOf: (t: bigint) => t };
  const empty = source(0);
  assert.deepEqual(await newestFirst(split(100n), 'desc', 25, empty.read, history), []);
  assert.equal(empty.reads.length, 2);
  const again = source(0);
  assert.deepEqual(await newestFirst(split(100n), 'desc', 25, again.read, history), []);
  assert.deepEqual(again.reads, [{ part: { from: 100n, through: 1000n }, limit: 25 }]);
  // a week later the split is past what was seen: only the gap is read
  const later = source(3, 150);
  assert.deepEqual(await newestFirst(split(160n), 'desc', 25, later.read, history), later.whole(25));
  assert.deepEqual(later.reads[1], { part: { from: 100n, before: 160n }, limit: 25 });
});

test('history: an open oldest-first page shows where the rows start; later pages of either order read from there', async () => {
  const db = fakeDb();
  const history = (open: boolean) => ({ db, key: 'logs:11', open, timestampOf: (t: bigint) => t });
  const a = source(11, 40, true);
  assert.deepEqual(await newestFirst(split(48n), 'asc', 5, a.read, history(true)), [40n, 41n, 42n, 43n, 44n]);
  const b = source(11, 40, true);
  assert.deepEqual(await newestFirst(split(48n), 'asc', 5, b.read, history(false)), [40n, 41n, 42n, 43n, 44n]);
  assert.deepEqual(b.reads, [{ part: { from: 40n, through: 1000n }, limit: 5 }]);
  const c = source(11, 40);
  assert.deepEqual(await newestFirst(split(48n), 'desc', 25, c.read, history(false)), c.whole(25));
  assert.deepEqual(c.reads[1], { part: { from: 40n, before: 48n }, limit: 22 });
  // none at all: nothing before the split
  const none = source(0, 1, true);
  await newestFirst(split(48n), 'asc', 5, none.read, { ...history(true), key: 'logs:12' });
  const d = source(3, 50, true);
  assert.deepEqual(await newestFirst(split(48n), 'asc', 5, d.read, { ...history(false), key: 'logs:12' }), [50n, 51n, 52n]);
  assert.deepEqual(d.reads, [{ part: { from: 48n, through: 1000n }, limit: 5 }]);
});
