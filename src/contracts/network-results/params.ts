/**
 * GET /api/v1/contracts/results: the request as a typed query (contracts-siblings.md 3.1): the
 * parameters of the per-contract results listing, with timestamps checked for syntax only (an
 * upper bound beyond int64 is clamped by the normalization of 1.5).
 */
import type { Config } from '../../config/config.ts';
import { badRequest } from '../../http/errors.ts';
import { invalidParameter } from '../../http/params/messages.ts';
import type { ParsedQuery } from '../../http/query.ts';
import { RESULT_RULES, type ResultsParams, TIMESTAMP_SYNTAX_RULE, parseResultsParams } from '../results/params.ts';
import { isOutOfRange } from '../shared/networkTimestamps.ts';

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
