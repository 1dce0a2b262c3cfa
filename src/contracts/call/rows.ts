/** What the call statements read (query.ts, and its Citus-safe form split.ts): the result's columns and the rows of a call. */
import type { ItemBlock } from '../../db/blocks.ts';
import { sql } from '../../db/sql.ts';
import type { CallLogRow, DetailedResultRow, EthereumRow, StateChangeRow } from '../common/detailedResult.ts';

export const RESULT_COLUMNS = sql`cr.amount, cr.bloom, cr.call_result, cr.consensus_timestamp, cr.contract_id,
  cr.created_contract_ids, cr.error_message, cr.failed_initcode, cr.function_parameters,
  case when cr.sender_id is null then cr.function_result end as function_result,
  cr.gas_consumed, cr.gas_limit, cr.gas_used, cr.payer_account_id, cr.sender_id, cr.transaction_hash,
  cr.transaction_index, cr.transaction_result`;

export interface CallKey {
  timestamp: bigint;
  /** The entity whose involvement (contract_transaction row) selects the transaction's contracts. */
  entityId: bigint;
  /** The path's contract, whose migration state changes are listed too (0: none). */
  pathContractId: bigint;
}

export interface CallRows {
  /** False when the entity took no part in a transaction at that time. */
  involved: boolean;
  result: DetailedResultRow | undefined;
  eth: EthereumRow | undefined;
  block: ItemBlock | undefined;
  logs: CallLogRow[];
  stateChanges: StateChangeRow[];
}
