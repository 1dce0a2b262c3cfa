/** The statements of GET /api/v1/contracts/results/{transactionIdOrHash}/actions. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import { INT32, type Range, rangeSql } from '../../db/range.ts';
import { type Order, and, direction, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';

/** The transaction whose actions are listed: its consensus timestamp and payer. */
export interface ActionsOwner {
  consensus_timestamp: string;
  payer_account_id: string;
}

/** By hash: the earliest contract transaction with it (no result excluded). */
export async function findOwnerByHash(db: Db, hash: Buffer): Promise<ActionsOwner | undefined> {
  const rows = await db.query<ActionsOwner>(sql`select consensus_timestamp, payer_account_id from contract_transaction_hash
    where hash = ${hash} order by consensus_timestamp limit 1`);
  return rows[0];
}

/** By transaction id: the earliest transaction with it (the parent; children share the id). */
export async function findOwnerById(db: Db, payer: bigint, validStartNs: bigint, latestNs: bigint): Promise<ActionsOwner | undefined> {
  const rows = await db.query<ActionsOwner>(sql`select consensus_timestamp, payer_account_id from transaction
    where payer_account_id = ${payer.toString()}
      and consensus_timestamp >= ${validStartNs.toString()} and consensus_timestamp <= ${latestNs.toString()}
      and valid_start_ns = ${validStartNs.toString()}
    order by consensus_timestamp
    limit 1`);
  return rows[0];
}

export interface ActionRow {
  call_depth: number;
  call_operation_type: number | null;
  call_type: number | null;
  caller: string | null;
  caller_type: string | null;
  consensus_timestamp: string;
  gas: string;
  gas_used: string;
  index: number;
  input: HexBytes | null;
  recipient_account: string | null;
  recipient_address: HexBytes | null;
  recipient_contract: string | null;
  result_data: HexBytes | null;
  result_data_type: number;
  value: string;
}

/** One page of a transaction's actions in index order: its primary key (consensus_timestamp, index). */
export function findActions(db: Db, owner: ActionsOwner, index: Range<bigint>, order: Order, limit: number): Promise<ActionRow[]> {
  return db.query<ActionRow>(sql`select call_depth, call_operation_type, call_type, caller, caller_type, consensus_timestamp, gas,
      gas_used, index, input, recipient_account, recipient_address, recipient_contract, result_data, result_data_type, value
    from contract_action
    where ${and([
      sql`consensus_timestamp = ${owner.consensus_timestamp}`,
      sql`payer_account_id = ${owner.payer_account_id}`,
      ...rangeSql(sql`index`, index, 'int', INT32),
    ])}
    order by index ${direction(order)}
    limit ${limit}`);
}
