/**
 * The contract family's requests as typed queries: GET /api/v1/contracts/{contractIdOrAddress} (one
 * contract, optionally as of a `timestamp`) and GET /api/v1/contracts (the listing by `contract.id`).
 */
import type { Config } from '../../config/config.ts';
import type { Operator } from '../../db/range.ts';
import { contractListingRef, contractLookupRef, type ContractRef, parseContractPath } from '../../http/request/contract.ts';
import { filtersOf, parseFilters, refuseTimestampsBeyondInt64 } from '../../http/request/filters.ts';
import { parseTimestamp } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { type FilterRule, LIMIT_RULE, ORDER_RULE, TIMESTAMP_SYNTAX_RULE } from '../../http/request/rules.ts';
import { type Paging, paging } from '../../http/request/listing.ts';

const LOOKUP_RULES = new Map([['timestamp', TIMESTAMP_SYNTAX_RULE]]);

export interface ContractParams {
  contract: ContractRef;
  /** Every `timestamp` filter in ns, in query order: the version as of / around these times. */
  timestamps: Array<{ operator: Operator; value: bigint }>;
}

/** Path syntax, query validation, then the path resolved as the per-contract routes do (400s). */
export function parseContractParams(contractId: string, query: ParsedQuery, config: Config): ContractParams {
  const path = parseContractPath(contractId);
  const filters = parseFilters(query, LOOKUP_RULES, config.query.maxRepeatedQueryParameters);
  const contract = contractLookupRef(path, config);
  refuseTimestampsBeyondInt64(filters);
  return {
    contract,
    timestamps: filters.map((f) => ({ operator: f.operator, value: parseTimestamp(f.value)! })),
  };
}

const EVM_ADDRESS = /^(\d{1,4}\.)?(\d{1,5}\.)?[A-Fa-f0-9]{40}$/;
const ENTITY_ID = [/^(\d{1,4}\.)?\d{1,5}\.\d{1,12}$/, /^-?\d{1,19}$/];

/** `contract.id`: an EVM address (no `0x`, optional shard/realm) with `eq` only, or an id with any operator. */
export const CONTRACT_ID_RULE: FilterRule = (operator, value) =>
  EVM_ADDRESS.test(value) ? operator === 'eq' : ENTITY_ID.some((re) => re.test(value));

/** The listing: `contract.id` (ids with any operator, EVM addresses `eq` only), `limit`, `order`. */
const LISTING_RULES = new Map([
  ['contract.id', CONTRACT_ID_RULE],
  ['limit', LIMIT_RULE],
  ['order', ORDER_RULE],
]);

export interface ContractsParams {
  /** The `contract.id` filters in query order, values as typed (converted one by one, see contractRef). */
  contractIds: Array<{ operator: Operator; value: string }>;
  paging: Paging;
}

export function parseContractsParams(query: ParsedQuery, config: Config): ContractsParams {
  const filters = parseFilters(query, LISTING_RULES, config.query.maxRepeatedQueryParameters);
  return {
    contractIds: filtersOf(filters, 'contract.id').map(({ operator, value }) => ({ operator, value })),
    paging: paging(filters, config, 'desc'),
  };
}

/**
 * One `contract.id` value as the routes under /contracts/{id}/ read their path: an opaque address
 * still to be looked up, else an encoded id; 400 `Invalid parameter: contractid` when it is none.
 */
export const contractRef = (value: string, config: Config): ContractRef =>
  contractListingRef({ text: value, pieces: value.split('.') }, config);
