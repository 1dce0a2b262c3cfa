/**
 * GET /api/v1/contracts: the request as a typed query (contracts-siblings.md 2.1): `contract.id`
 * (ids with any operator, EVM addresses `eq` only), `limit`, `order`, filter-style validation.
 */
import type { Config } from '../../config/config.ts';
import { type Paging, paging } from '../../http/request/listing.ts';
import { type ContractRef, contractListingRef } from '../../http/request/contract.ts';
import { filtersOf, parseFilters } from '../../http/request/filters.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { type FilterRule, LIMIT_RULE, ORDER_RULE } from '../../http/request/rules.ts';
import type { Operator } from '../../db/range.ts';

const EVM_ADDRESS = /^(\d{1,4}\.)?(\d{1,5}\.)?[A-Fa-f0-9]{40}$/;
const ENTITY_ID = [/^(\d{1,4}\.)?\d{1,5}\.\d{1,12}$/, /^-?\d{1,19}$/];

/** `contract.id`: an EVM address (no `0x`, optional shard/realm) with `eq` only, or an id with any operator. */
export const CONTRACT_ID_RULE: FilterRule = (operator, value) =>
  EVM_ADDRESS.test(value) ? operator === 'eq' : ENTITY_ID.some((re) => re.test(value));

const RULES = new Map([
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
  const filters = parseFilters(query, RULES, config.query.maxRepeatedQueryParameters);
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
