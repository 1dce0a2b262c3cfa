/** GET /api/v1/contracts/results/{transactionIdOrHash}/actions: the request as a typed query. */
import type { Config } from '../../config/config.ts';
import { INT32, type Range, narrow, emptyRange } from '../../db/range.ts';
import { badRequest } from '../../http/request/errors.ts';
import { type Paging, paging } from '../../http/request/listing.ts';
import { type Filter, filtersOf, parseFilters } from '../../http/request/filters.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import { type TransactionRef, parseTransactionRef } from '../../http/request/transaction.ts';
import { isLaxNumber, parsePgInt4 } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { LIMIT_RULE, ORDER_RULE, anyOperator } from '../../http/request/rules.ts';

const RULES = new Map([
  ['index', anyOperator(isLaxNumber)],
  ['limit', LIMIT_RULE],
  ['order', ORDER_RULE],
]);

export interface ActionsRequest {
  transaction: TransactionRef;
  /** The `index` filters as given (checked as integers where the reference runs its query). */
  indexFilters: Filter[];
  paging: Paging;
}

/** The query (filter style, then `index=ne:` refused), then the path. */
export function parseActionsRequest(path: string, query: ParsedQuery, config: Config): ActionsRequest {
  const filters = parseFilters(query, RULES, config.query.maxRepeatedQueryParameters);
  const indexFilters = filtersOf(filters, 'index');
  if (indexFilters.some((f) => f.operator === 'ne')) throw badRequest(invalidParameter('index'));
  return { transaction: parseTransactionRef(path, config), indexFilters, paging: paging(filters, config, 'asc') };
}

/**
 * The index conditions, ANDed one per filter as the reference writes them (two different `eq`
 * values match nothing). A value PostgreSQL would not read as an int4 is 400 here (503 there).
 */
export function indexRange(filters: readonly Filter[]): Range<bigint> {
  let range = emptyRange<bigint>();
  for (const f of filters) {
    const value = parsePgInt4(f.value);
    if (value === undefined) throw badRequest(invalidParameter('index'));
    const op = f.operator;
    range = op === 'eq' ? narrow(narrow(range, 'gte', BigInt(value), INT32), 'lte', BigInt(value), INT32) : narrow(range, op, BigInt(value), INT32);
  }
  return range;
}
