/** GET /api/v1/contracts/{contractIdOrAddress}: the request as a typed query (contracts-api.md 4.1). */
import type { Config } from '../../config/config.ts';
import type { Operator } from '../../db/range.ts';
import { type ContractRef, contractLookupRef, parseContractPath } from '../../http/request/contract.ts';
import { parseFilters } from '../../http/request/filters.ts';
import { parseTimestamp } from '../../http/request/values.ts';
import type { ParsedQuery } from '../../http/request/query.ts';
import { TIMESTAMP_RULE } from '../../http/request/rules.ts';

const RULES = new Map([['timestamp', TIMESTAMP_RULE]]);

export interface ContractParams {
  contract: ContractRef;
  /** Every `timestamp` filter in ns, in query order: the version as of / around these times. */
  timestamps: Array<{ operator: Operator; value: bigint }>;
}

/** Path syntax, query validation, then the path resolved as endpoint 1 does (400s). */
export function parseContractParams(contractId: string, query: ParsedQuery, config: Config): ContractParams {
  const path = parseContractPath(contractId);
  const filters = parseFilters(query, RULES, config.query.maxRepeatedQueryParameters);
  return {
    contract: contractLookupRef(path, config),
    timestamps: filters.map((f) => ({ operator: f.operator, value: parseTimestamp(f.value)! })),
  };
}
