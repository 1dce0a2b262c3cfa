/** Items of GET /api/v1/contracts/{id}/state; key order is part of the contract. */
import { entityIdToString, longZeroAddress } from '../../format/entityId.ts';
import { hex } from '../../format/hex.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import { uint256 } from '../common/detailedResult.ts';
import type { StateRow } from './query.ts';

export interface StateView {
  address: string | null;
  contract_id: string | null;
  timestamp: string | null;
  slot: string | null;
  value: string | null;
}

export const stateView = (row: StateRow): StateView => ({
  address: row.evm_address ? hex(row.evm_address) : longZeroAddress(row.contract_id),
  contract_id: entityIdToString(row.contract_id),
  timestamp: formatTimestamp(row.modified_timestamp),
  slot: uint256(row.slot),
  value: uint256(row.value),
});
