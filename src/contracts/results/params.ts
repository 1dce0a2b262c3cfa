/**
 * The query parameters of GET /api/v1/contracts/{id}/results (reference sections 1.3 and 5.1-5.3):
 * per-key rules, value conversion, the dependency check, and the reduction of the filters to the
 * conditions of one query.
 */
import type { Config } from '../../config/config.ts';
import { INT64_MAX, INT64_MIN, MAX_NUM, encodeEntityId, longZeroToId } from '../../format/entityId.ts';
import { timestampToNs } from '../../format/timestamp.ts';
import { parseDottedId } from '../../http/contractParam.ts';
import { ClientError, badRequest, invalidParameter } from '../../http/errors.ts';
import {
  type Filter,
  type FilterRule,
  type Operator,
  buildFilters,
  eqOnly,
  isInt64AtLeast,
  limitRule,
  orderRule,
} from '../../http/filters.ts';
import type { ParsedQuery } from '../../http/query.ts';
import { timestampRule } from '../shared/rules.ts';

const BLOCK_HASH = /^(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})$/;
const ENTITY_ID = /^(\d{1,4}\.)?\d{1,5}\.\d{1,12}$/;
const ENCODED_ID = /^-?\d{1,19}$/;
const EVM_ADDRESS = /^(0x)?[0-9A-Fa-f]{40}$/;
const BOOLEAN = /^(true|false)$/i;

export const isBlockHash = (value: string): boolean => BLOCK_HASH.test(value);

/**
 * The block number a `block.number` value denotes, as the decimal text the reference sends to the
 * database, or undefined when the value is invalid: decimal `^\d{1,19}$` within int64, or lower-case
 * `0x` hex read with JavaScript's lenient parseInt (`0x1Z` is 1) whose result, printed as a
 * JavaScript number, is again a decimal within int64.
 */
export function blockNumberValue(value: string): string | undefined {
  if (isInt64AtLeast(value, 0n)) return value;
  if (!value.startsWith('0x')) return undefined;
  const text = String(Number.parseInt(value, 16));
  return isInt64AtLeast(text, 0n) ? text : undefined;
}

/** `from` syntax: an entity id (`[shard.]realm.num` or an integer) or a 40-hex EVM address. */
export const isFromSyntax = (value: string): boolean =>
  ENTITY_ID.test(value) || ENCODED_ID.test(value) || EVM_ADDRESS.test(value);

export const RESULT_RULES: ReadonlyMap<string, FilterRule> = new Map<string, FilterRule>([
  ['block.hash', eqOnly(isBlockHash)],
  ['block.number', eqOnly((value) => blockNumberValue(value) !== undefined)],
  ['from', (_op, value) => isFromSyntax(value)],
  ['internal', eqOnly((value) => BOOLEAN.test(value))],
  ['limit', limitRule],
  ['order', orderRule],
  ['timestamp', timestampRule],
  ['transaction.index', eqOnly((value) => isInt64AtLeast(value, 0n))],
]);

/** A `from` value after conversion: an entity id, or an opaque EVM address still to be looked up. */
export type Sender = { kind: 'id'; id: bigint } | { kind: 'evm'; hex: string };

/**
 * Converts a syntactically valid `from` value. A long-zero address of the configured shard/realm is
 * its id; an integer is the *num* of an id in the configured shard/realm. Ids beyond the entity id
 * limits are 400 `Invalid parameter: from`.
 */
export function convertFrom(value: string, config: Config): Sender {
  if (EVM_ADDRESS.test(value)) {
    const hex = value.startsWith('0x') ? value.slice(2) : value;
    const id = longZeroToId(hex, config.common.shard, config.common.realm);
    return id === undefined ? { kind: 'evm', hex } : { kind: 'id', id };
  }
  if (value.includes('.')) {
    const id = parseDottedId(value, config);
    if (id === undefined) throw badRequest(invalidParameter('from'));
    return { kind: 'id', id };
  }
  const num = BigInt(value);
  if (num < 0n || num > MAX_NUM) throw badRequest(invalidParameter('from'));
  return { kind: 'id', id: encodeEntityId(config.common.shard, config.common.realm, num) };
}

const COUNT_EXCEEDED = 'Parameter values count exceeds maximum number allowed:';

/** The `from` values of the query that the generic validation turned into filters. */
function fromValues(query: ParsedQuery, maxRepeated: number): string[] {
  const value = query.get('from');
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.length > maxRepeated ? [] : value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

export interface ValidatedQuery {
  filters: Filter[];
  /** Converted `from` filters, in query order. */
  senders: Array<{ operator: Operator; sender: Sender }>;
}

/**
 * Validation in the reference's order: count/invalid/unknown messages (1.3); the values are
 * converted as soon as no value is invalid or unknown, so a conversion failure (`from`) is reported
 * alone, ahead of count messages; then the dependency check of block filters and transaction.index.
 */
export function validateQuery(query: ParsedQuery, config: Config): ValidatedQuery {
  const maxRepeated = config.query.maxRepeatedQueryParameters;
  let filters: Filter[];
  try {
    filters = buildFilters(query, RESULT_RULES, maxRepeated);
  } catch (err) {
    if (err instanceof ClientError && err.messages.every((m) => m.startsWith(COUNT_EXCEEDED))) {
      for (const value of fromValues(query, maxRepeated)) {
        const colon = value.split(':');
        convertFrom(colon.length === 1 ? value : colon[1]!, config);
      }
    }
    throw err;
  }
  const senders = filters
    .filter((f) => f.key === 'from')
    .map((f) => ({ operator: f.operator, sender: convertFrom(f.value, config) }));

  const usage: string[] = [];
  const hasBlock = query.has('block.number') || query.has('block.hash');
  if (query.has('transaction.index') && !hasBlock) {
    usage.push(
      'Invalid parameter usage: transaction.index - transaction.index requires block.number or block.hash filter to be specified',
    );
  }
  if (query.has('block.number') && query.has('block.hash')) {
    usage.push('Invalid parameter usage: block.hash - cannot combine block.number and block.hash');
  }
  if (usage.length > 0) throw badRequest(usage);
  return { filters, senders };
}

/** The block filter in effect (the last block.number / block.hash), if any. */
export type BlockFilter = { kind: 'number'; value: string } | { kind: 'hash'; prefix: string };

export function blockFilter(filters: readonly Filter[]): BlockFilter | undefined {
  for (let i = filters.length - 1; i >= 0; i--) {
    const f = filters[i]!;
    if (f.key === 'block.number') return { kind: 'number', value: blockNumberValue(f.value)! };
    if (f.key === 'block.hash') return { kind: 'hash', prefix: f.value.startsWith('0x') ? f.value.slice(2) : f.value };
  }
  return undefined;
}

/** `internal`: the last value, case-insensitive; false by default. */
export function internalValue(filters: readonly Filter[]): boolean {
  for (let i = filters.length - 1; i >= 0; i--) {
    if (filters[i]!.key === 'internal') return filters[i]!.value.toLowerCase() === 'true';
  }
  return false;
}

/**
 * Comparisons on one bigint column, ANDed: every `eq` value together forms one `in` list, `ne`
 * values exclude, and the `gt`/`gte`/`lt`/`lte` filters narrow to one closed interval. Equivalent to
 * the reference's one condition per filter, with a fixed statement shape.
 */
export interface Range {
  lower?: bigint;
  upper?: bigint;
  eq?: bigint[];
  ne: bigint[];
  /** No value can satisfy every condition. */
  empty: boolean;
}

export const emptyRange = (): Range => ({ ne: [], empty: false });

export function narrow(range: Range, operator: Operator, value: bigint): void {
  switch (operator) {
    case 'eq':
      (range.eq ??= []).push(value);
      break;
    case 'ne':
      range.ne.push(value);
      break;
    case 'gt':
    case 'gte': {
      const lower = operator === 'gt' ? value + 1n : value;
      if (range.lower === undefined || lower > range.lower) range.lower = lower;
      break;
    }
    case 'lt':
    case 'lte': {
      const upper = operator === 'lt' ? value - 1n : value;
      if (range.upper === undefined || upper < range.upper) range.upper = upper;
      break;
    }
  }
  const { lower, upper } = range;
  if ((lower !== undefined && lower > INT64_MAX) || (upper !== undefined && upper < INT64_MIN)) range.empty = true;
  if (lower !== undefined && upper !== undefined && lower > upper) range.empty = true;
}

/** The timestamp range of the `timestamp` filters (values in seconds.nanos). */
export function timestampRange(filters: readonly Filter[]): Range {
  const range = emptyRange();
  for (const f of filters) if (f.key === 'timestamp') narrow(range, f.operator, BigInt(timestampToNs(f.value)));
  return range;
}

const INT32_MAX = 2147483647n;

/**
 * The `transaction.index` values (contract_result.transaction_index is an int4). A value beyond
 * int4 is 400 `Invalid parameter: transaction.index` (the reference's database rejects it: 503).
 */
export function transactionIndexes(filters: readonly Filter[]): number[] | undefined {
  const values = filters.filter((f) => f.key === 'transaction.index').map((f) => BigInt(f.value));
  if (values.length === 0) return undefined;
  if (values.some((v) => v > INT32_MAX)) throw badRequest(invalidParameter('transaction.index'));
  return values.map(Number);
}
