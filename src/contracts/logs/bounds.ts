/**
 * The request rules of GET /api/v1/contracts/{id}/results/logs that come after the generic query
 * validation (reference sections 6.2-6.4): the timestamp collapse, the topic/timestamp-range rule,
 * bound parsing and validation, and the query parts the bounds select.
 */
import type { Config } from '../../config/config.ts';
import { INT64_MAX } from '../../format/entityId.ts';
import { timestampToNs } from '../../format/timestamp.ts';
import { badRequest, invalidParameter } from '../../http/errors.ts';
import type { Filter, Operator } from '../../http/filters.ts';

export const TOPIC_KEYS = ['topic0', 'topic1', 'topic2', 'topic3'] as const;
export type TopicKey = (typeof TOPIC_KEYS)[number];

const isTopicKey = (key: string): key is TopicKey => (TOPIC_KEYS as readonly string[]).includes(key);

const TOPIC = /^(0x)?[0-9A-Fa-f]{1,64}$/;

/** `topicN` value syntax: 1-64 hex digits, optional lower-case `0x`. */
export const isTopic = (value: string): boolean => TOPIC.test(value);

/**
 * A topic value as stored by the importer: `0x` and every leading `0` removed, odd length padded
 * with one `0`. An all-zero value becomes empty bytes (which matches no stored topic).
 */
export function topicBytes(value: string): Buffer {
  let digits = value.replace(/^(0x)?0*/, '');
  if (digits.length % 2 !== 0) digits = `0${digits}`;
  return Buffer.from(digits, 'hex');
}

/**
 * `index` as the reference validates it: JavaScript's lax numeric test (parseFloat is a number and
 * the whole text is a finite number) and >= 0. Texts such as `1.5`, `1e0`, `0x1` or ` 1` pass here;
 * see {@link indexValue} for the integer check that runs before the query.
 */
export function isLaxIndex(value: string): boolean {
  const n = Number(value);
  return !Number.isNaN(Number.parseFloat(value)) && Number.isFinite(n) && n >= 0;
}

const INT32_MAX = 2147483647;

/**
 * The integer an `index` filter value denotes (contract_log.index is an int4), or undefined when it
 * is not a plain decimal integer within 0..2^31-1 (the reference passes such text to PostgreSQL and
 * answers 503; this service answers 400 `Invalid parameter: index`).
 */
export function indexValue(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = Number(text);
  if (n < 0 || n > INT32_MAX) return undefined;
  return n === 0 ? 0 : n; // "-0" is 0
}

/** Timestamp filters carry nanoseconds from here on. */
export function timestampsToNs(filters: readonly Filter[]): Filter[] {
  return filters.map((f) => (f.key === 'timestamp' ? { ...f, value: timestampToNs(f.value) } : f));
}

/**
 * 6.2 step 3: exactly two timestamp filters `gte:T` and `lte:T` (same nanoseconds) become one `eq:T`,
 * appended after all other filters.
 */
export function collapseTimestamps(filters: readonly Filter[]): Filter[] {
  const timestamps = filters.filter((f) => f.key === 'timestamp');
  if (timestamps.length !== 2) return [...filters];
  const [a, b] = timestamps as [Filter, Filter];
  const rangeOps: Operator[] = ['gte', 'lte'];
  if (a.value !== b.value || a.operator === b.operator || !rangeOps.includes(a.operator) || !rangeOps.includes(b.operator)) {
    return [...filters];
  }
  return [...filters.filter((f) => f.key !== 'timestamp'), { key: 'timestamp', operator: 'eq', value: a.value }];
}

/** The reason the timestamp filters do not form a range a topic search accepts, or undefined. */
export function topicRangeProblem(timestamps: readonly Filter[], config: Config): string | undefined {
  if (timestamps.length === 0) return 'No timestamp range or eq operator provided';
  let earliest: bigint | null = null;
  let latest: bigint | null = null;
  const eqValues = new Set<string>();
  let neCount = 0;
  let lowerCount = 0;
  let upperCount = 0;
  for (const filter of timestamps) {
    const value = BigInt(filter.value);
    switch (filter.operator) {
      case 'eq':
        eqValues.add(filter.value);
        break;
      case 'ne':
        neCount++;
        break;
      case 'gt':
      case 'gte': {
        const lo = filter.operator === 'gt' ? value + 1n : value;
        const base: bigint = earliest ?? 0n;
        earliest = lo > base ? lo : base;
        lowerCount++;
        break;
      }
      case 'lt':
      case 'lte': {
        const hi = filter.operator === 'lt' ? value - 1n : value;
        const current: bigint = latest ?? INT64_MAX;
        latest = hi < current ? hi : current;
        upperCount++;
        break;
      }
    }
  }
  if (neCount > 0) return 'Not equals operator not supported for timestamp param';
  if (lowerCount > 1) return 'Multiple gt or gte operators not permitted for timestamp param';
  if (upperCount > 1) return 'Multiple lt or lte operators not permitted for timestamp param';
  if (eqValues.size > 0 && (lowerCount > 0 || upperCount > 0)) {
    return 'Cannot combine eq with ne, gt, gte, lt, or lte for timestamp param';
  }
  if (eqValues.size === 0 && (lowerCount === 0 || upperCount === 0)) {
    return 'Timestamp range must have gt (or gte) and lt (or lte), or eq operator';
  }
  if (earliest !== null && latest !== null) {
    const difference = latest - earliest + 1n;
    if (difference > config.query.maxTimestampRangeNs || difference <= 0n) {
      return `Timestamp range by the lower and upper bounds must be positive and within ${config.query.maxTimestampRange}`;
    }
  }
  return undefined;
}

/** 6.2 step 4 / 6.3: any topic filter requires a valid timestamp range of at most maxTimestampRange. */
export function checkTopicTimestamps(filters: readonly Filter[], config: Config): void {
  if (!filters.some((f) => isTopicKey(f.key))) return;
  const problem = topicRangeProblem(
    filters.filter((f) => f.key === 'timestamp'),
    config,
  );
  if (problem !== undefined) throw badRequest(`Cannot search topics without a valid timestamp range: ${problem}`);
}

/** At most one eq, one lower (gt/gte) and one upper (lt/lte) filter of one key. */
export interface Bound {
  equal?: Filter;
  lower?: Filter;
  upper?: Filter;
}

export interface Bounds {
  timestamp: Bound;
  index: Bound;
}

const hasRange = (b: Bound) => b.lower !== undefined || b.upper !== undefined;
const isEmpty = (b: Bound) => b.equal === undefined && !hasRange(b);

function addToBound(bound: Bound, filter: Filter): void {
  switch (filter.operator) {
    case 'eq':
      if (bound.equal) throw badRequest(`Only one equal (eq) operator is allowed for ${filter.key}`);
      bound.equal = filter;
      return;
    case 'gt':
    case 'gte':
      if (bound.lower) throw badRequest(`Only one gt/gte operator is allowed for ${filter.key}`);
      bound.lower = filter;
      return;
    case 'lt':
    case 'lte':
      if (bound.upper) throw badRequest(`Only one lt/lte operator is allowed for ${filter.key}`);
      bound.upper = filter;
      return;
    case 'ne':
      throw badRequest(`Not equal (ne) operator is not supported for ${filter.key}`);
  }
}

/** 6.2 step 7: timestamp and index filters into bounds, in filter order; the first violation is reported. */
export function parseBounds(filters: readonly Filter[]): Bounds {
  const bounds: Bounds = { timestamp: {}, index: {} };
  for (const filter of filters) {
    if (filter.key === 'timestamp' || filter.key === 'index') addToBound(bounds[filter.key], filter);
  }
  return bounds;
}

/** 6.2 step 8: combinations of timestamp and index bounds, first failure wins. */
export function validateBounds({ timestamp, index }: Bounds): void {
  if (index.equal && !timestamp.equal) throw badRequest('timestamp must have eq operator');
  if (hasRange(timestamp) && timestamp.equal) throw badRequest("Can't support both range and equal for timestamp");
  if (hasRange(index) && index.equal) throw badRequest("Can't support both range and equal for index");
  if (isEmpty(timestamp) && !isEmpty(index)) throw badRequest('index without a timestamp parameter filter');
  if (index.lower && !timestamp.equal && (!timestamp.lower || timestamp.lower.operator === 'gt')) {
    throw badRequest('timestamp must have gte or eq operator');
  }
  if (index.upper && !timestamp.equal && (!timestamp.upper || timestamp.upper.operator === 'lt')) {
    throw badRequest('timestamp must have lte or eq operator');
  }
}

/**
 * A set of (consensus_timestamp, index) pairs: inclusive bounds on each column (undefined = open).
 * Timestamps in nanoseconds.
 */
export interface Box {
  from?: bigint;
  to?: bigint;
  indexFrom?: number;
  indexTo?: number;
}

type Condition = { key: 'timestamp' | 'index'; operator: Operator; value: string };

/**
 * One query part of the reference as a box, or undefined when no row can satisfy it. `gt`/`lt` become
 * inclusive bounds one step further; a bound beyond the column's range empties the box.
 */
function toBox(conditions: readonly Condition[]): Box | undefined {
  const box: Box = {};
  for (const { key, operator, value } of conditions) {
    if (key === 'timestamp') {
      const v = BigInt(value);
      const lo = operator === 'gt' ? v + 1n : v;
      const hi = operator === 'lt' ? v - 1n : v;
      if (operator === 'eq' || operator === 'gt' || operator === 'gte') box.from = box.from === undefined || lo > box.from ? lo : box.from;
      if (operator === 'eq' || operator === 'lt' || operator === 'lte') box.to = box.to === undefined || hi < box.to ? hi : box.to;
    } else {
      const v = indexValue(value);
      if (v === undefined) throw badRequest(invalidParameter('index'));
      const lo = operator === 'gt' ? v + 1 : v;
      const hi = operator === 'lt' ? v - 1 : v;
      if (operator === 'eq' || operator === 'gt' || operator === 'gte') box.indexFrom = box.indexFrom === undefined || lo > box.indexFrom ? lo : box.indexFrom;
      if (operator === 'eq' || operator === 'lt' || operator === 'lte') box.indexTo = box.indexTo === undefined || hi < box.indexTo ? hi : box.indexTo;
    }
  }
  if (box.from !== undefined && box.from > INT64_MAX) return undefined;
  if (box.indexFrom !== undefined && box.indexFrom > INT32_MAX) return undefined;
  if (box.from !== undefined && box.to !== undefined && box.from > box.to) return undefined;
  if (box.indexFrom !== undefined && box.indexTo !== undefined && box.indexFrom > box.indexTo) return undefined;
  return box;
}

const cond = (filter: Filter | undefined, operator?: Operator): Condition[] =>
  filter ? [{ key: filter.key as Condition['key'], operator: operator ?? filter.operator, value: filter.value }] : [];

/**
 * 6.4: the lower, inner and upper query parts of the validated bounds, each as a box (empty parts
 * dropped). The result is the union of the boxes; an empty list means no row matches. With no
 * timestamp or index filter it is one unbounded box. Throws 400 `Invalid parameter: index` for an
 * index value that is not an int4 integer.
 */
export function queryBoxes({ timestamp: t, index: i }: Bounds): Box[] {
  for (const f of [i.equal, i.lower, i.upper]) {
    if (f && indexValue(f.value) === undefined) throw badRequest(invalidParameter('index'));
  }
  const parts: Condition[][] = [];
  if (!hasRange(i)) {
    parts.push([...cond(t.equal), ...cond(t.lower), ...cond(t.upper), ...cond(i.equal)]);
  } else if (t.lower && i.lower) {
    parts.push([...cond(t.lower, 'eq'), ...cond(i.lower)]);
  } else if (t.equal) {
    parts.push([...cond(t.equal), ...cond(t.lower), ...cond(t.upper), ...cond(i.lower), ...cond(i.equal), ...cond(i.upper)]);
  }
  if (hasRange(t) && hasRange(i)) {
    parts.push([...cond(t.lower, i.lower ? 'gt' : undefined), ...cond(t.upper, i.upper ? 'lt' : undefined)]);
  }
  if (t.upper && i.upper) parts.push([...cond(t.upper, 'eq'), ...cond(i.upper)]);
  return parts.map(toBox).filter((b): b is Box => b !== undefined);
}
