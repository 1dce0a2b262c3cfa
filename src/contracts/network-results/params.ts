/**
 * GET /api/v1/contracts/results: the request as a typed query (contracts-siblings.md 3.1): the
 * parameters of the per-contract results listing, with timestamps checked for syntax only (an
 * upper bound beyond int64 is clamped by the normalization of 1.5).
 */
import type { Config } from '../../config/config.ts';
import { badRequest, notFound } from '../../http/request/errors.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { RESULT_RULES, type ResultsParams, parseResultsParams } from '../results/params.ts';
import { isOutOfRange } from '../shared/networkTimestamps.ts';
import { TIMESTAMP_SYNTAX_RULE } from '../../http/request/rules.ts';

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

/** A path segment as the reference's router decodes a parameter. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The raw path's last segment, which the router matched as `results` in any case and decoded: the
 * reference's contract-by-id route sees it first and lets only a lower-case `results` pass (400
 * `Invalid parameter: contractid` otherwise), and then its literal `results` route does not match a
 * percent-encoded one (404).
 */
export function checkResultsPath(path: string): void {
  const segment = path.replace(/\/$/, '').split('/').pop()!;
  if (segment === 'results') return;
  if (decodedSegment(segment) === 'results') throw notFound();
  throw badRequest(invalidParameter('contractid'));
}
