/** GET /api/v1/contracts/{contractIdOrAddress}/state: the request as a typed query. */
import type { Config } from '../../config/config.ts';
import { BYTES, INT64, type Operator, type Range, rangeOf } from '../../db/range.ts';
import { badRequest } from '../../http/request/errors.ts';
import { type Paging, paging } from '../../http/request/listing.ts';
import { type ContractRef, contractListingRef, parseContractPath } from '../../http/request/contract.ts';
import { type Filter, filtersOf, parseFilters } from '../../http/request/filters.ts';
import { isHex64, paddedBytes32, parseTimestampNs, trimmedBytes } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { LIMIT_RULE, ORDER_RULE, TIMESTAMP_SYNTAX_RULE, notNe } from '../../http/request/rules.ts';

const RULES = new Map([
  ['limit', LIMIT_RULE],
  ['order', ORDER_RULE],
  ['slot', notNe(isHex64)],
  ['timestamp', TIMESTAMP_SYNTAX_RULE],
]);

export interface StateParams {
  contract: ContractRef;
  /** Slots as stored: 32 bytes in contract_state, without leading zero bytes in contract_state_change. */
  slot: Range<Buffer>;
  /** The timestamp filters, `eq` read as `lte`; undefined without any: the current state. */
  timestamp?: Range<bigint>;
  paging: Paging;
}

/** Path syntax, then the query (filter style); contract resolution comes between this and `checkTimestamps`. */
export function parseStateRequest(contractId: string, query: ParsedQuery, config: Config): { contract: ContractRef; filters: Filter[] } {
  const path = parseContractPath(contractId);
  const filters = parseFilters(query, RULES, config.query.maxRepeatedQueryParameters);
  return { contract: contractListingRef(path, config), filters };
}

/** After contract resolution: `timestamp=ne:` is refused, `eq` means "as of", slots take the stored form. */
export function stateParams(contract: ContractRef, filters: readonly Filter[], config: Config): StateParams {
  const timestamps = filtersOf(filters, 'timestamp');
  if (timestamps.some((f) => f.operator === 'ne')) throw badRequest('Not equals (ne) operator is not supported for timestamp');
  const historical = timestamps.length > 0;
  const slotBytes = historical ? trimmedBytes : paddedBytes32;
  const slot = rangeOf(
    filtersOf(filters, 'slot').map((f) => ({ operator: f.operator, value: slotBytes(f.value) })),
    BYTES,
  );
  const asOf = (op: Operator): Operator => (op === 'eq' ? 'lte' : op);
  const params: StateParams = { contract, slot, paging: paging(filters, config, 'asc') };
  if (historical) {
    params.timestamp = rangeOf(
      timestamps.map((f) => ({ operator: asOf(f.operator), value: parseTimestampNs(f.value)! })),
      INT64,
    );
  }
  return params;
}
