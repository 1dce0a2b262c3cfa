/** The requests of both call routes as typed queries, with the reference's messages. */
import type { Config } from '../../config/config.ts';
import { badRequest } from '../../http/request/errors.ts';
import { type ContractRef, contractListingRef, isContractPathSyntax, parseContractPath } from '../../http/request/contract.ts';
import { checkKeys } from '../../http/request/filters.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import { parseTimestamp } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { type TransactionPathParams, parseTransactionPath } from '../common/transactionPath.ts';

export interface CallByTimestampParams {
  contract: ContractRef;
  /** Consensus timestamp in ns. */
  timestamp: bigint;
}

/** No query parameter is accepted here: each key is reported once. */
const NO_KEYS = new Map();

/**
 * GET /contracts/{contractIdOrAddress}/results/{timestamp}: both path parameters are checked
 * together (`Invalid parameter: contractid`, then `... timestamp`), then the query. A timestamp
 * beyond the int64 nanosecond range is invalid (503 in the reference).
 */
export function parseCallByTimestampParams(contractId: string, timestampText: string, query: ParsedQuery, config: Config): CallByTimestampParams {
  const timestamp = parseTimestamp(timestampText);
  const messages: string[] = [];
  if (!isContractPathSyntax(contractId)) messages.push(invalidParameter('contractid'));
  if (timestamp === undefined) messages.push(invalidParameter('timestamp'));
  if (messages.length > 0) throw badRequest(messages);
  checkKeys(query, NO_KEYS, config.query.maxRepeatedQueryParameters);
  return { contract: contractListingRef(parseContractPath(contractId), config), timestamp: timestamp! };
}

/** Path values that are routes of a contract in the reference (/{contractId}/results, /{contractId}/state). */
const CONTRACT_ROUTES = new Set(['results', 'state']);

/**
 * GET /contracts/results/{transactionIdOrHash}. The reference's routes /{contractId}/results and
 * /{contractId}/state come first there: with the contract id "results" they answer that it is not
 * one.
 */
export function parseCallByTransactionParams(transactionIdOrHash: string, query: ParsedQuery, config: Config): TransactionPathParams {
  if (CONTRACT_ROUTES.has(transactionIdOrHash.toLowerCase())) throw badRequest(invalidParameter('contractid'));
  return parseTransactionPath(transactionIdOrHash, query, config);
}
