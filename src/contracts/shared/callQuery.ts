/**
 * The statements that read one call in full, for /contracts/{id}/results/{timestamp} and
 * /contracts/results/{transactionIdOrHash} (contracts-siblings.md 5.2-5.3). Nothing of HTTP.
 */
import type { Db } from '../../db/db.ts';
import { type Sql, and, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';
import type { BlockRow, CallLogRow, DetailedResultRow, EthereumRow, StateChangeRow } from './detailedResult.ts';

/** The contract_transaction row of an entity involved in the transaction at a timestamp. */
export interface InvolvementRow {
  payer_account_id: string;
  contract_ids: string[];
}

export async function findInvolvement(db: Db, timestamp: bigint, entityId: bigint): Promise<InvolvementRow | undefined> {
  const rows = await db.query<InvolvementRow>(
    sql`select payer_account_id, contract_ids from contract_transaction
        where consensus_timestamp = ${timestamp.toString()} and entity_id = ${entityId.toString()}`,
  );
  return rows[0];
}

export const RESULT_COLUMNS = sql`cr.amount, cr.bloom, cr.call_result, cr.consensus_timestamp, cr.contract_id,
  cr.created_contract_ids, cr.error_message, cr.failed_initcode, cr.function_parameters,
  case when cr.sender_id is null then cr.function_result end as function_result,
  cr.gas_consumed, cr.gas_limit, cr.gas_used, cr.payer_account_id, cr.sender_id, cr.transaction_hash,
  cr.transaction_index, cr.transaction_result`;

/** A condition limiting `column` to the involved contracts; none when the list is empty (all). */
const involved = (column: Sql, ids: readonly string[]): Sql[] =>
  ids.length === 0 ? [] : [sql`${column} = any(${ids}::bigint[])`];

export interface CallKey {
  timestamp: bigint;
  payer: string;
  /** The contracts involved in the transaction (contract_transaction.contract_ids). */
  contractIds: readonly string[];
  /** The path's contract, whose migration state changes are listed too (0: none). */
  pathContractId: bigint;
}

export interface CallRows {
  result: DetailedResultRow | undefined;
  eth: EthereumRow | undefined;
  block: BlockRow | undefined;
  logs: CallLogRow[];
  stateChanges: StateChangeRow[];
}

/** The result, its Ethereum transaction, block, logs and state changes: five statements at once. */
export async function findCall(db: Db, key: CallKey): Promise<CallRows> {
  const ts = key.timestamp.toString();
  const [results, eths, blocks, logs, stateChanges] = await Promise.all([
    db.query<DetailedResultRow>(sql`select ${RESULT_COLUMNS}, e.evm_address
      from contract_result cr left join entity e on e.id = cr.contract_id
      where ${and([sql`cr.consensus_timestamp = ${ts}`, ...involved(sql`cr.contract_id`, key.contractIds)])}`),
    db.query<EthereumRow>(sql`select etht.access_list, etht.call_data, etht.call_data_id, etht.chain_id,
        etht.consensus_timestamp, etht.gas_limit, etht.gas_price, etht.max_fee_per_gas,
        etht.max_priority_fee_per_gas, etht.nonce, etht.signature_r, etht.signature_s, etht.signature_v,
        etht.type, etht.recovery_id, etht.to_address, etht.value
      from ethereum_transaction etht
      join transaction t on t.consensus_timestamp = etht.consensus_timestamp and t.payer_account_id = etht.payer_account_id
      where etht.consensus_timestamp = ${ts} and etht.payer_account_id = ${key.payer}
      limit 1`),
    db.query<BlockRow>(sql`select hash, index, gas_used from record_file
      where consensus_end >= ${ts} order by consensus_end limit 1`),
    db.query<CallLogRow>(sql`select cl.bloom, cl.contract_id, cl.data, cl.index, cl.topic0, cl.topic1, cl.topic2, cl.topic3,
        e.evm_address
      from contract_log cl left join entity e on e.id = cl.contract_id
      where ${and([sql`cl.consensus_timestamp = ${ts}`, ...involved(sql`cl.contract_id`, key.contractIds)])}
      order by cl.index`),
    db.query<StateChangeRow>(sql`select csc.contract_id, csc.slot, csc.value_read, csc.value_written, e.evm_address
      from contract_state_change csc left join entity e on e.id = csc.contract_id
      where csc.consensus_timestamp = ${ts}
        and (${stateChangeScope(key)})
      order by csc.contract_id, csc.slot`),
  ]);
  return { result: results[0], eth: eths[0], block: blocks[0], logs, stateChanges };
}

/** The involved contracts' changes without migration rows, plus every change of the path's contract. */
function stateChangeScope(key: CallKey): Sql {
  const others = and([...involved(sql`csc.contract_id`, key.contractIds), sql`csc.migration is false`]);
  return key.pathContractId === 0n ? others : sql`csc.contract_id = ${key.pathContractId.toString()} or (${others})`;
}

/**
 * The current content of a file (call data kept in a file): from its newest FileCreate or
 * FileUpdate on, every create, append and update in order. NULL when no such start exists.
 */
export async function findFileContent(db: Db, fileId: string): Promise<HexBytes | null> {
  const rows = await db.query<{ content: HexBytes | null }>(sql`select string_agg(f.file_data, ''::bytea order by f.consensus_timestamp) as content
    from file_data f
    where f.entity_id = ${fileId} and f.transaction_type in (16, 17, 19)
      and f.consensus_timestamp >= (
        select g.consensus_timestamp from file_data g
        where g.entity_id = ${fileId} and g.transaction_type in (17, 19)
        order by g.consensus_timestamp desc limit 1)`);
  return rows[0]?.content ?? null;
}
