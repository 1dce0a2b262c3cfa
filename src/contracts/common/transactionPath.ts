/**
 * The request of /contracts/results/{transactionIdOrHash} (the call family's route, whose checks
 * the network logs route repeats for the paths the reference sends there), and the consensus
 * window of a transaction id, which the call and actions routes read.
 */
import type { Config } from '../../config/config.ts';
import { INT64 } from '../../db/range.ts';
import { checkKeys, lastValue } from '../../http/request/filters.ts';
import { type TransactionRef, parseTransactionRef } from '../../http/request/transaction.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { eqOnly } from '../../http/request/rules.ts';

const NONCE = /^\d{1,10}$/;

/** `nonce`: eq only, 0..2^31-1. */
const RULES = new Map([['nonce', eqOnly((value) => NONCE.test(value) && Number(value) <= 2147483647)]]);

export interface TransactionPathParams {
  transaction: TransactionRef;
  /** The last `nonce` (default 0): selects a child transaction of the id; ignored for a hash. */
  nonce: number;
}

/** The query first (key style: unknown keys once each, invalid nonces), then the path. */
export function parseTransactionPath(path: string, query: ParsedQuery, config: Config): TransactionPathParams {
  const filters = checkKeys(query, RULES, config.query.maxRepeatedQueryParameters);
  const nonce = lastValue(filters, 'nonce');
  return { transaction: parseTransactionRef(path, config), nonce: nonce === undefined ? 0 : Number(nonce) };
}

/**
 * The latest consensus timestamp of a transaction with this valid start: the valid start plus
 * query.maxTransactionConsensusTimestampRange, capped at the column's int64 range (the reference
 * overflows: 503). Undefined for a valid start beyond that range, which no transaction has.
 */
export function latestConsensusNs(validStartNs: bigint, config: Config): bigint | undefined {
  if (validStartNs > INT64.max!) return undefined;
  const end = validStartNs + config.query.maxTransactionConsensusTimestampRangeNs;
  return end > INT64.max! ? INT64.max! : end;
}
