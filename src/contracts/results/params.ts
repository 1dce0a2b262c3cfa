/**
 * GET /api/v1/contracts/{id}/results: the request as a typed query.
 * The same parameters serve GET /api/v1/contracts/results, without a contract.
 */
import type { Config } from '../../config/config.ts';
import { INT32, INT64, type Operator, type Range, rangeOf } from '../../db/range.ts';
import { badRequest, ClientError, notFound } from '../../http/request/errors.ts';
import { type Paging, paging } from '../../http/request/listing.ts';
import { collectFilters, type Filter, filtersOf, lastValue } from '../../http/request/filters.ts';
import { BLOCK_NUMBER_AND_HASH, invalidParameter, TRANSACTION_INDEX_NEEDS_BLOCK } from '../../http/request/messages.ts';
import { type ParsedQuery, decodedSegment } from '../../http/request/query.ts';
import { hashDigits, isEncodedIdSyntax, isEntityIdSyntax, isEvmAddressSyntax, isHash32Or48, parseBlockNumber, parseBoolean, parseDottedId, parseEntityNum, parseEvmAddress, parseInt64, parseTimestampNs } from '../../http/request/values.ts';
import { longZeroToId } from '../../format/entityId.ts';
import { anyOperator, eqOnly, LIMIT_RULE, ORDER_RULE, type Rules, TIMESTAMP_SYNTAX_RULE } from '../../http/request/rules.ts';
import { isOutOfRange } from '../common/networkTimestamps.ts';

export const RESULT_RULES: Rules = new Map([
  ['block.hash', eqOnly(isHash32Or48)],
  ['block.number', eqOnly((value) => parseBlockNumber(value) !== undefined)],
  ['from', anyOperator((value) => isEntityIdSyntax(value) || isEncodedIdSyntax(value) || isEvmAddressSyntax(value))],
  ['internal', eqOnly((value) => parseBoolean(value) !== undefined)],
  ['limit', LIMIT_RULE],
  ['order', ORDER_RULE],
  ['timestamp', TIMESTAMP_SYNTAX_RULE],
  ['transaction.index', eqOnly((value) => parseInt64(value) !== undefined)],
]);

/** A `from` value after conversion: an entity id, or an opaque EVM address still to be looked up. */
export type Sender = { kind: 'id'; id: bigint } | { kind: 'evm'; hex: string };

/** The block filter in effect (the last block.number / block.hash). */
export type BlockFilter = { kind: 'number'; value: bigint } | { kind: 'hash'; prefix: string };

export interface ResultsParams {
  senders: Array<{ operator: Operator; sender: Sender }>;
  /** The timestamp filters in ns, as given (values may exceed int64 with the syntax-only rule). */
  timestamps: Array<{ operator: Operator; value: bigint }>;
  /** Their range (values beyond int64 excluded by the per-contract rule). */
  timestamp: Range<bigint>;
  block?: BlockFilter;
  /** `transaction.index` values as typed (checked against the int4 column by transactionIndexes). */
  transactionIndexes: bigint[];
  /** Child results (transaction_nonce > 0) included. */
  internal: boolean;
  paging: Paging;
}

/**
 * A `from` value: a long-zero address of the configured shard/realm is its id; an integer is the
 * num of an id in the configured shard/realm. Ids beyond the limits: 400 `Invalid parameter: from`.
 */
export function convertFrom(value: string, config: Config): Sender {
  const hex = parseEvmAddress(value);
  if (hex !== undefined) {
    const id = longZeroToId(hex, config.common.shard, config.common.realm);
    return id === undefined ? { kind: 'evm', hex } : { kind: 'id', id };
  }
  const id = value.includes('.') ? parseDottedId(value, config) : parseEntityNum(value, config);
  if (id === undefined) throw badRequest(invalidParameter('from'));
  return { kind: 'id', id };
}

function blockFilter(filters: readonly Filter[]): BlockFilter | undefined {
  const last = [...filters].reverse().find((f) => f.key === 'block.number' || f.key === 'block.hash');
  if (last === undefined) return undefined;
  if (last.key === 'block.number') return { kind: 'number', value: parseBlockNumber(last.value)! };
  return { kind: 'hash', prefix: hashDigits(last.value) };
}

/**
 * The query in the reference's order: count/invalid/unknown messages; `from` values converted as
 * soon as no value is invalid or unknown (a conversion failure is reported alone, ahead of count
 * messages); then the dependency check of the block filters and transaction.index.
 */
export function parseResultsParams(query: ParsedQuery, config: Config, rules: Rules = RESULT_RULES): ResultsParams {
  const found = collectFilters(query, rules, config.query.maxRepeatedQueryParameters);
  const clean = found.invalid.length === 0 && found.unknown.length === 0;
  const senders = clean
    ? filtersOf(found.filters, 'from').map((f) => ({ operator: f.operator, sender: convertFrom(f.value, config) }))
    : [];
  const messages = [...found.counts, ...found.invalid, ...found.unknown];
  if (messages.length > 0) throw new ClientError(400, messages);

  const usage: string[] = [];
  const hasBlock = query.has('block.number') || query.has('block.hash');
  if (query.has('transaction.index') && !hasBlock) usage.push(TRANSACTION_INDEX_NEEDS_BLOCK);
  if (query.has('block.number') && query.has('block.hash')) usage.push(BLOCK_NUMBER_AND_HASH);
  if (usage.length > 0) throw badRequest(usage);

  const filters = found.filters;
  const internal = lastValue(filters, 'internal');
  const timestamps = filtersOf(filters, 'timestamp').map((f) => ({ operator: f.operator, value: parseTimestampNs(f.value)! }));
  return {
    senders,
    timestamps,
    timestamp: rangeOf(
      timestamps.filter((t) => t.value <= INT64.max!),
      INT64,
    ),
    block: blockFilter(filters),
    transactionIndexes: filtersOf(filters, 'transaction.index').map((f) => BigInt(f.value)),
    internal: internal !== undefined && parseBoolean(internal)!,
    paging: paging(filters, config, 'desc'),
  };
}

/**
 * The `transaction.index` values as int4 (contract_result.transaction_index). Checked where the
 * reference runs its query (after the block lookup): a value beyond int4 is 400 here, 503 there.
 */
export function transactionIndexes(values: readonly bigint[]): number[] {
  if (values.some((v) => v > INT32.max!)) throw badRequest(invalidParameter('transaction.index'));
  return values.map(Number);
}

/**
 * GET /api/v1/contracts/results: the request as a typed query: the
 * parameters of the per-contract results listing, with timestamps checked for syntax only (an
 * upper bound beyond int64 is clamped by the normalization of 1.5).
 */

const RULES = new Map([...RESULT_RULES, ['timestamp', TIMESTAMP_SYNTAX_RULE]]);

export function parseNetworkResultsParams(query: ParsedQuery, config: Config): ResultsParams {
  return parseResultsParams(query, config, RULES);
}

/**
 * A lower bound or `eq` beyond the int64 nanosecond range: 400 where the reference runs its query
 * (it answers 503 there).
 */
export function checkTimestampRange(params: ResultsParams): void {
  if (params.timestamps.some(isOutOfRange)) throw badRequest(invalidParameter('timestamp'));
}

/**
 * The `results` segment as sent, which the router matched in any case and decoded: the reference's
 * contract-by-id route sees it first and lets only a lower-case `results` pass (400 `Invalid
 * parameter: contractid` otherwise), and then its literal `results` route does not match a
 * percent-encoded one (404).
 */
export function checkResultsSegment(segment: string): void {
  if (segment === 'results') return;
  if (decodedSegment(segment) === 'results') throw notFound();
  throw badRequest(invalidParameter('contractid'));
}

/**
 * A `timestamp` beyond int64 on a contract's results: it passes the reference's validation and fails
 * its query (503); refused here where that query would run (compatibility.md row 2).
 */
export function refuseResultsTimestamps(params: ResultsParams): void {
  if (params.timestamps.some((t) => t.value > INT64.max!)) throw badRequest(invalidParameter('timestamp'));
}
