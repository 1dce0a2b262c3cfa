/** GET /api/v1/contracts/results/{transactionIdOrHash}: the request as a typed query. */
import type { Config } from '../../config/config.ts';
import { checkKeys, lastValue } from '../../http/request/filters.ts';
import { type TransactionRef, parseTransactionRef } from '../../http/request/transaction.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { eqOnly } from '../../http/request/rules.ts';

const NONCE = /^\d{1,10}$/;

/** `nonce`: eq only, 0..2^31-1. */
const RULES = new Map([['nonce', eqOnly((value) => NONCE.test(value) && Number(value) <= 2147483647)]]);

export interface ResultByTransactionParams {
  transaction: TransactionRef;
  /** The last `nonce` (default 0): selects a child transaction of the id; ignored for a hash. */
  nonce: number;
}

/** The query first (key style: unknown keys once each, invalid nonces), then the path. */
export function parseResultByTransactionParams(path: string, query: ParsedQuery, config: Config): ResultByTransactionParams {
  const filters = checkKeys(query, RULES, config.query.maxRepeatedQueryParameters);
  const nonce = lastValue(filters, 'nonce');
  return { transaction: parseTransactionRef(path, config), nonce: nonce === undefined ? 0 : Number(nonce) };
}
