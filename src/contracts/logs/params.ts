/**
 * GET /api/v1/contracts/{id}/results/logs: the request as a typed query:
 * validation, the timestamp collapse, the topic/timestamp-range rule, bound parsing and
 * validation, and the (timestamp, index) boxes the bounds select. The network-wide logs listing
 * uses the same rules.
 */
import type { Config } from '../../config/config.ts';
import { INT32, INT64, type Operator, type Range, rangeOf } from '../../db/range.ts';
import { badRequest } from '../../http/request/errors.ts';
import { type Filter, parseFilters } from '../../http/request/filters.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import { hashDigits, isHash32Or48, isHex64, isLaxNumber, parsePgInt4, parseTimestampNs, trimmedBytes } from '../../http/request/values.ts';
import { anyOperator, eqOnly, type FilterRule, LIMIT_RULE, ORDER_RULE, TIMESTAMP_SYNTAX_RULE } from '../../http/request/rules.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { type ContractRef, contractListingRef, isContractPathSyntax, parseContractPath } from '../../http/request/contract.ts';
import { isOutOfRange, type TimestampCondition } from '../common/networkTimestamps.ts';

export const TOPIC_KEYS = ['topic0', 'topic1', 'topic2', 'topic3'] as const;
export type TopicKey = (typeof TOPIC_KEYS)[number];

const isTopicKey = (key: string): key is TopicKey => (TOPIC_KEYS as readonly string[]).includes(key);

export const LOG_RULES = new Map<string, FilterRule>([
  ['index', anyOperator(isLaxNumber)],
  ['limit', LIMIT_RULE],
  ['order', ORDER_RULE],
  ['timestamp', TIMESTAMP_SYNTAX_RULE],
  ...TOPIC_KEYS.map((key) => [key, eqOnly(isHex64)] as [string, FilterRule]),
]);

/** The values of each topic key as stored by the importer (OR within a key, AND across keys). */
export function topicValues(filters: readonly Filter[]): Map<TopicKey, Buffer[]> {
  const topics = new Map<TopicKey, Buffer[]>();
  for (const filter of filters) {
    if (!isTopicKey(filter.key)) continue;
    topics.set(filter.key, [...(topics.get(filter.key) ?? []), trimmedBytes(filter.value)]);
  }
  return topics;
}

/** Timestamp filters carry nanoseconds from here on. */
export const timestampsToNs = (filters: readonly Filter[]): Filter[] =>
  filters.map((f) => (f.key === 'timestamp' ? { ...f, value: parseTimestampNs(f.value)!.toString() } : f));

/**
 * 6.2 step 3: exactly two timestamp filters `gte:T` and `lte:T` (same nanoseconds) become one `eq:T`,
 * appended after all other filters.
 */
export function collapseTimestamps(filters: readonly Filter[]): Filter[] {
  const timestamps = filters.filter((f) => f.key === 'timestamp');
  if (timestamps.length !== 2) return [...filters];
  const [a, b] = timestamps as [Filter, Filter];
  const ops = new Set([a.operator, b.operator]);
  if (a.value !== b.value || !ops.has('gte') || !ops.has('lte')) return [...filters];
  return [...filters.filter((f) => f.key !== 'timestamp'), { key: 'timestamp', operator: 'eq', value: a.value }];
}

const count = (filters: readonly Filter[], ...ops: Operator[]) => filters.filter((f) => ops.includes(f.operator)).length;

/** The reason the timestamp filters do not form a range a topic search accepts, or undefined. */
export function topicRangeProblem(timestamps: readonly Filter[], config: Config): string | undefined {
  if (timestamps.length === 0) return 'No timestamp range or eq operator provided';
  const lowers = count(timestamps, 'gt', 'gte');
  const uppers = count(timestamps, 'lt', 'lte');
  const eqs = count(timestamps, 'eq');
  if (count(timestamps, 'ne') > 0) return 'Not equals operator not supported for timestamp param';
  if (lowers > 1) return 'Multiple gt or gte operators not permitted for timestamp param';
  if (uppers > 1) return 'Multiple lt or lte operators not permitted for timestamp param';
  if (eqs > 0 && (lowers > 0 || uppers > 0)) return 'Cannot combine eq with ne, gt, gte, lt, or lte for timestamp param';
  if (eqs === 0 && (lowers === 0 || uppers === 0)) return 'Timestamp range must have gt (or gte) and lt (or lte), or eq operator';
  if (eqs > 0) return undefined;
  const range = rangeOf(
    timestamps.map((f) => ({ operator: f.operator, value: BigInt(f.value) })),
    INT64,
  );
  const earliest = range.lower!.value < 0n ? 0n : range.lower!.value;
  const difference = range.upper!.value - earliest + 1n;
  if (difference > config.query.maxTimestampRangeNs || difference <= 0n) {
    return `Timestamp range by the lower and upper bounds must be positive and within ${config.query.maxTimestampRange}`;
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
export interface KeyFilters {
  equal?: Filter;
  lower?: Filter;
  upper?: Filter;
}

export interface LogFilters {
  timestamp: KeyFilters;
  index: KeyFilters;
}

export const hasRange = (b: KeyFilters): boolean => b.lower !== undefined || b.upper !== undefined;
const isEmpty = (b: KeyFilters) => b.equal === undefined && !hasRange(b);

/** Adds one timestamp or index filter to its bound; 400 for a second eq, lower or upper, or any ne. */
export function addKeyFilter(bound: KeyFilters, filter: Filter): void {
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
export function parseLogFilters(filters: readonly Filter[]): LogFilters {
  const bounds: LogFilters = { timestamp: {}, index: {} };
  for (const filter of filters) {
    if (filter.key === 'timestamp' || filter.key === 'index') addKeyFilter(bounds[filter.key], filter);
  }
  return bounds;
}

/** 6.2 step 8: combinations of timestamp and index bounds, first failure wins. */
export function validateLogFilters({ timestamp, index }: LogFilters): void {
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

/** A set of (consensus_timestamp, index) pairs: one range on each column (bounds inclusive). */
export interface Box {
  timestamp: Range<bigint>;
  index: Range<bigint>;
}

type Condition = { key: 'timestamp' | 'index'; operator: Operator; value: string };

/** An `eq` is both bounds, so that every box is two closed (or open-ended) intervals. */
const asBounds = (c: Condition): Condition[] =>
  c.operator === 'eq' ? [{ ...c, operator: 'gte' }, { ...c, operator: 'lte' }] : [c];

const numeric = (c: Condition) => ({ operator: c.operator, value: c.key === 'index' ? BigInt(parsePgInt4(c.value)!) : BigInt(c.value) });

/** One query part of the reference as a box, or undefined when no row can satisfy it. */
function toBox(conditions: readonly Condition[]): Box | undefined {
  const bounds = conditions.flatMap(asBounds);
  const timestamp = rangeOf(bounds.filter((c) => c.key === 'timestamp').map(numeric), INT64);
  const index = rangeOf(bounds.filter((c) => c.key === 'index').map(numeric), INT32);
  return timestamp.empty || index.empty ? undefined : { timestamp, index };
}

const cond = (filter: Filter | undefined, operator?: Operator): Condition[] =>
  filter ? [{ key: filter.key as Condition['key'], operator: operator ?? filter.operator, value: filter.value }] : [];

/**
 * 6.4: the lower, inner and upper query parts of the validated bounds, each as a box (empty parts
 * dropped). The result is the union of the boxes; an empty list means no row matches. With no
 * timestamp or index filter it is one unbounded box. Throws 400 `Invalid parameter: index` for an
 * index value that PostgreSQL would not read as an int4 (the reference answers 503).
 */
export function queryBoxes({ timestamp: t, index: i }: LogFilters): Box[] {
  for (const f of [i.equal, i.lower, i.upper]) {
    if (f && parsePgInt4(f.value) === undefined) throw badRequest(invalidParameter('index'));
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

/**
 * GET /api/v1/contracts/results/logs: the request as a typed query:
 * the per-contract logs rules without a contract, timestamps checked for syntax only (an upper
 * bound beyond int64 is clamped), plus `transaction.hash`.
 */

const RULES = new Map([...LOG_RULES, ['timestamp', TIMESTAMP_SYNTAX_RULE], ['transaction.hash', eqOnly(isHash32Or48)]]);

/** With the additions on: `address`, contracts in every form the path takes (eq only, repeatable). */
const ADDITION_RULES = new Map([...RULES, ['address', eqOnly(isContractPathSyntax)]]);

export interface NetworkLogsParams {
  filters: Filter[];
  bounds: LogFilters;
  /** The 32- or 48-byte hash of `transaction.hash`. */
  hash?: Buffer;
  /** The contracts of the `address` filters (an addition), in query order; undefined without any. */
  addresses?: ContractRef[];
}

/** An `address` value as the contract it names (the syntax passed its rule; a value out of range is a 400). */
function addressRef(value: string, config: Config): ContractRef {
  try {
    return contractListingRef(parseContractPath(value), config);
  } catch {
    throw badRequest(invalidParameter('address'));
  }
}

/** Validation, the timestamp collapse, the topic rule, then one pass for bounds and the hash, then the bound rules. */
export function parseNetworkLogsParams(query: ParsedQuery, config: Config): NetworkLogsParams {
  const rules = config.additions.filters ? ADDITION_RULES : RULES;
  const filters = collapseTimestamps(timestampsToNs(parseFilters(query, rules, config.query.maxRepeatedQueryParameters)));
  checkTopicTimestamps(filters, config);
  const bounds: LogFilters = { timestamp: {}, index: {} };
  let hash: Buffer | undefined;
  for (const filter of filters) {
    if (filter.key === 'transaction.hash') {
      if (hash !== undefined) throw badRequest('Only one transaction.hash filter is allowed');
      hash = Buffer.from(hashDigits(filter.value), 'hex');
    } else if (filter.key === 'timestamp' || filter.key === 'index') {
      addKeyFilter(bounds[filter.key], filter);
    }
  }
  validateLogFilters(bounds);
  const addresses = filters.filter((f) => f.key === 'address').map((f) => addressRef(f.value, config));
  return { filters, bounds, ...(hash === undefined ? {} : { hash }), ...(addresses.length > 0 ? { addresses } : {}) };
}

/** The user's timestamp bounds as conditions (ns). */
export function timestampConditions({ timestamp }: LogFilters): TimestampCondition[] {
  return [timestamp.equal, timestamp.lower, timestamp.upper]
    .filter((f): f is Filter => f !== undefined)
    .map((f) => ({ operator: f.operator, value: BigInt(f.value) }));
}

/**
 * Timestamps beyond int64 where the reference's query fails (503): every bound with
 * `transaction.hash`, else a lower bound or `eq` (an upper bound is clamped). 400 here.
 */
export function checkTimestampRange(conditions: readonly TimestampCondition[], withHash: boolean): void {
  const max = 9223372036854775807n;
  if (conditions.some((c) => (withHash ? c.value > max : isOutOfRange(c)))) throw badRequest(invalidParameter('timestamp'));
}
