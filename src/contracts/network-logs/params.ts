/**
 * GET /api/v1/contracts/results/logs: the request as a typed query (contracts-siblings.md 4.1-4.2):
 * the per-contract logs rules without a contract, timestamps checked for syntax only (an upper
 * bound beyond int64 is clamped), plus `transaction.hash`.
 */
import type { Config } from '../../config/config.ts';
import { badRequest } from '../../http/request/errors.ts';
import { type Filter, parseFilters } from '../../http/request/filters.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import { hashDigits, isHash32Or48 } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { type Bounds, LOG_RULES, addToBound, checkTopicTimestamps, collapseTimestamps, timestampsToNs, validateBounds } from '../logs/params.ts';
import { type TimestampCondition, isOutOfRange } from '../shared/networkTimestamps.ts';
import { TIMESTAMP_SYNTAX_RULE, eqOnly } from '../../http/request/rules.ts';

const RULES = new Map([...LOG_RULES, ['timestamp', TIMESTAMP_SYNTAX_RULE], ['transaction.hash', eqOnly(isHash32Or48)]]);

export interface NetworkLogsParams {
  filters: Filter[];
  bounds: Bounds;
  /** The 32- or 48-byte hash of `transaction.hash`. */
  hash?: Buffer;
}

/** Validation, the timestamp collapse, the topic rule, then one pass for bounds and the hash, then the bound rules. */
export function parseNetworkLogsParams(query: ParsedQuery, config: Config): NetworkLogsParams {
  const filters = collapseTimestamps(timestampsToNs(parseFilters(query, RULES, config.query.maxRepeatedQueryParameters)));
  checkTopicTimestamps(filters, config);
  const bounds: Bounds = { timestamp: {}, index: {} };
  let hash: Buffer | undefined;
  for (const filter of filters) {
    if (filter.key === 'transaction.hash') {
      if (hash !== undefined) throw badRequest('Only one transaction.hash filter is allowed');
      hash = Buffer.from(hashDigits(filter.value), 'hex');
    } else if (filter.key === 'timestamp' || filter.key === 'index') {
      addToBound(bounds[filter.key], filter);
    }
  }
  validateBounds(bounds);
  return hash === undefined ? { filters, bounds } : { filters, bounds, hash };
}

/** The user's timestamp bounds as conditions (ns). */
export function timestampConditions({ timestamp }: Bounds): TimestampCondition[] {
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
