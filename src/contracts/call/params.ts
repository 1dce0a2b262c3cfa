/** GET /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}: the request as a typed query. */
import type { Config } from '../../config/config.ts';
import { badRequest } from '../../http/request/errors.ts';
import { type ContractRef, contractListingRef, isContractPathSyntax, parseContractPath } from '../../http/request/contract.ts';
import { checkKeys } from '../../http/request/filters.ts';
import { invalidParameter } from '../../http/request/messages.ts';
import { parseTimestamp } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';

export interface ResultByTimestampParams {
  contract: ContractRef;
  /** Consensus timestamp in ns. */
  timestamp: bigint;
}

/** No query parameter is accepted here: each key is reported once. */
const NO_KEYS = new Map();

/**
 * Both path parameters are checked together (`Invalid parameter: contractid`, then `... timestamp`),
 * then the query. A timestamp beyond the int64 nanosecond range is invalid (503 in the reference).
 */
export function parseResultByTimestampParams(contractId: string, timestampText: string, query: ParsedQuery, config: Config): ResultByTimestampParams {
  const timestamp = parseTimestamp(timestampText);
  const messages: string[] = [];
  if (!isContractPathSyntax(contractId)) messages.push(invalidParameter('contractid'));
  if (timestamp === undefined) messages.push(invalidParameter('timestamp'));
  if (messages.length > 0) throw badRequest(messages);
  checkKeys(query, NO_KEYS, config.query.maxRepeatedQueryParameters);
  return { contract: contractListingRef(parseContractPath(contractId), config), timestamp: timestamp! };
}
