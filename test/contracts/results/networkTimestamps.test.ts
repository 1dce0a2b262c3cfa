/**
 * The timestamp normalization of the network-wide listings: examples,
 * and a property test against a literal model of the reference's steps (conditions evaluated one
 * by one, not as a Range).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { INT64, type Operator, contains } from '../../../src/db/range.ts';
import { type BindOptions, type TimestampCondition, isOutOfRange, normalizeTimestamps } from '../../../src/contracts/common/networkTimestamps.ts';

const MAX = 9223372036854775807n;
const DAY = 86_400_000_000_000n;
const OFF: BindOptions = { enabled: false, maxRangeNs: 60n * DAY, order: 'desc', now: 0n, firstTransaction: async () => assert.fail('not needed') };
const c = (operator: Operator, value: bigint): TimestampCondition => ({ operator, value });

/** The reference's steps as a list of predicates (and the bind "next" value). */
async function model(conditions: readonly TimestampCondition[], bind: BindOptions) {
  const eq = new Set<bigint>();
  const ne = new Set<bigint>();
  let earliest: bigint | null = null;
  let latest: bigint | null = null;
  for (const { operator, value } of conditions) {
    if (operator === 'eq') eq.add(value);
    else if (operator === 'ne') ne.add(value);
    else if (operator === 'gt' || operator === 'gte') {
      const v = operator === 'gt' ? value + 1n : value;
      earliest = (earliest ?? 0n) > v ? (earliest ?? 0n) : v;
    } else {
      const v = operator === 'lt' ? value - 1n : value;
      latest = (latest ?? MAX) < v ? (latest ?? MAX) : v;
    }
  }
  let begin: bigint | null = earliest;
  let end: bigint | null = latest;
  if (begin !== null && end !== null && end - begin + 1n <= 0n) begin = end = null;
  let next: bigint | undefined;
  if (bind.enabled && eq.size === 0) {
    begin ??= await bind.firstTransaction();
    end ??= bind.now;
    if (end - begin + 1n > bind.maxRangeNs) {
      if (bind.order === 'desc') next = begin = end - bind.maxRangeNs + 1n;
      else next = end = begin + bind.maxRangeNs - 1n;
    }
  }
  const predicates: Array<(t: bigint) => boolean> = [];
  if (begin) predicates.push((t) => t >= begin!);
  if (end) predicates.push((t) => t <= end!);
  if (eq.size > 0) predicates.push((t) => eq.has(t));
  for (const v of ne) predicates.push((t) => t !== v);
  return { matches: (t: bigint) => predicates.every((p) => p(t)), next };
}

test('contradictory ranges and zero bounds drop out; upper bounds are clamped', async () => {
  const contradiction = await normalizeTimestamps([c('gt', 10n), c('lt', 10n)], OFF);
  assert.deepEqual(contradiction.range, { ne: [], empty: false });
  assert.deepEqual((await normalizeTimestamps([c('lt', 1n)], OFF)).range, { ne: [], empty: false });
  assert.deepEqual((await normalizeTimestamps([c('lte', 0n)], OFF)).range, { ne: [], empty: false });
  const clamped = await normalizeTimestamps([c('lt', 9999999999_000000000n)], OFF);
  assert.deepEqual(clamped.range.upper, { value: MAX, inclusive: true });
  // eq with a contradiction keeps only the eq list
  const eq = await normalizeTimestamps([c('gt', 10n), c('lt', 10n), c('eq', 5n), c('eq', 5n)], OFF);
  assert.deepEqual([eq.range.eq, eq.range.lower, eq.range.upper], [[5n], undefined, undefined]);
});

test('a lower bound or eq beyond int64 is out of range; an upper bound is not', () => {
  assert.equal(isOutOfRange(c('gt', MAX + 1n)), true);
  assert.equal(isOutOfRange(c('eq', MAX + 1n)), true);
  assert.equal(isOutOfRange(c('ne', MAX + 1n)), true);
  assert.equal(isOutOfRange(c('lte', MAX + 1n)), false);
  assert.equal(isOutOfRange(c('gte', MAX)), false);
});

test('bindTimestampRange: the spec examples (60 days cut at the end nearest the order)', async () => {
  const t = 1720987654_000123456n;
  const now = 1800000000_000000000n;
  const asc = await normalizeTimestamps([c('gte', t)], { ...OFF, enabled: true, order: 'asc', now });
  assert.equal(asc.next, 1726171654_000123455n);
  assert.deepEqual([asc.range.lower?.value, asc.range.upper?.value], [t, 1726171654_000123455n]);
  let asked = 0;
  const first = async () => {
    asked++;
    return 1000n;
  };
  const desc = await normalizeTimestamps([c('lte', t)], { ...OFF, enabled: true, order: 'desc', now, firstTransaction: first });
  assert.equal(desc.next, 1715803654_000123457n);
  assert.equal(asked, 1);
  // no cut: no next; with eq: nothing is bound and the first transaction is not asked for
  const short = await normalizeTimestamps([c('gte', now - DAY)], { ...OFF, enabled: true, now, firstTransaction: first });
  assert.deepEqual([short.next, short.range.upper?.value], [undefined, now]);
  const eq = await normalizeTimestamps([c('eq', t)], { ...OFF, enabled: true, now, firstTransaction: first });
  assert.deepEqual([eq.range.lower, eq.range.upper, asked], [undefined, undefined, 1]);
  // a window starting after now matches nothing
  assert.equal((await normalizeTimestamps([c('gt', now)], { ...OFF, enabled: true, now })).range.empty, true);
});

test('upperBound: set by an upper bound or eq that takes effect, never by the clock', async () => {
  assert.equal((await normalizeTimestamps([c('gte', 5n), c('lte', 20n)], OFF)).upperBound, 20n);
  assert.equal((await normalizeTimestamps([c('gte', 5n), c('lt', 20n)], OFF)).upperBound, 19n);
  assert.equal((await normalizeTimestamps([c('eq', 7n), c('eq', 9n)], OFF)).upperBound, 9n);
  assert.equal((await normalizeTimestamps([c('gte', 5n)], OFF)).upperBound, undefined);
  // dropped bounds: a bound of 0, a contradictory range
  assert.equal((await normalizeTimestamps([c('lte', 0n)], OFF)).upperBound, undefined);
  assert.equal((await normalizeTimestamps([c('gt', 10n), c('lt', 10n)], OFF)).upperBound, undefined);
  // bindTimestampRange closes an open range at now: still not capped by the request
  const bound = await normalizeTimestamps([c('gte', 5n)], { ...OFF, enabled: true, now: 50n, firstTransaction: async () => 1n });
  assert.deepEqual([bound.range.upper?.value, bound.upperBound], [50n, undefined]);
});

test('property: the range matches exactly what the reference conditions match', async () => {
  const operator = fc.constantFrom<Operator>('eq', 'ne', 'lt', 'lte', 'gt', 'gte');
  const condition = fc.record({ operator, value: fc.oneof(fc.bigInt(0n, 24n), fc.constantFrom(MAX - 1n, MAX, MAX + 5n)) });
  const bind = fc.record({
    enabled: fc.boolean(),
    maxRangeNs: fc.bigInt(1n, 12n),
    order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
    now: fc.bigInt(0n, 30n),
    first: fc.bigInt(0n, 10n),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(condition, { maxLength: 6 }), bind, async (conditions, b) => {
      const options: BindOptions = { ...b, firstTransaction: async () => b.first };
      const ours = await normalizeTimestamps(conditions, options);
      const reference = await model(conditions, options);
      assert.equal(ours.next, reference.next);
      for (let t = -2n; t <= 32n; t++) {
        assert.equal(!ours.range.empty && contains(ours.range, t, INT64), reference.matches(t), `t=${t}`);
      }
      for (const t of [MAX - 1n, MAX]) assert.equal(!ours.range.empty && contains(ours.range, t, INT64), reference.matches(t), `t=${t}`);
      // upperBound (what makes a page settled for the response cache): nothing above it matches, and
      // the range does not move with the clock
      if (ours.upperBound !== undefined) {
        for (let t = ours.upperBound + 1n; t <= 32n; t++) assert.equal(reference.matches(t), false, `t=${t} above ${ours.upperBound}`);
        const later = await normalizeTimestamps(conditions, { ...options, now: options.now + 17n });
        assert.deepEqual([later.range, later.next, later.upperBound], [ours.range, ours.next, ours.upperBound]);
      }
    }),
    { numRuns: 3000 },
  );
});
