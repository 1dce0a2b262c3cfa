/**
 * The statements that read one call in full, for /contracts/{id}/results/{timestamp} and
 * /contracts/results/{transactionIdOrHash} (contracts-siblings.md 5.2-5.3). Nothing of HTTP.
 */
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { findCallSplit } from './callSplit.ts';
import { type Sql, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';
import type { BlockRow, CallLogRow, DetailedResultRow, EthereumRow, StateChangeRow } from './detailedResult.ts';

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
  block: BlockRow | undefined;
  logs: CallLogRow[];
  stateChanges: StateChangeRow[];
}

/** The involvement row: the payer and the contracts of the transaction (all, when the list is empty). */
const involvement = (key: CallKey) => sql`inv as (
    select payer_account_id, contract_ids from contract_transaction
    where consensus_timestamp = ${key.timestamp.toString()} and entity_id = ${key.entityId.toString()}
  )`;

const involvedContract = (column: Sql) => sql`(cardinality(inv.contract_ids) = 0 or ${column} = any(inv.contract_ids))`;

type HeadRow = Partial<DetailedResultRow> & { [column: `eth_${string}` | `block_${string}`]: unknown };

const ETH_FIELDS = [
  'access_list', 'call_data', 'call_data_id', 'chain_id', 'consensus_timestamp', 'gas_limit', 'gas_price', 'max_fee_per_gas',
  'max_priority_fee_per_gas', 'nonce', 'signature_r', 'signature_s', 'signature_v', 'type', 'recovery_id', 'to_address', 'value',
] as const;

/**
 * The call in three statements sent at once, each starting from the involvement row: (1) the
 * result, its Ethereum transaction (only with a transaction row of the same time and payer) and its
 * block (the first record file ending at or after the timestamp); (2) the logs of the involved
 * contracts; (3) their state changes without migration rows, plus every change of the path's contract.
 */
export async function findCall(db: Db, key: CallKey): Promise<CallRows> {
  if (citusSafe(dbLayout(db))) return findCallSplit(db, key);
  const ts = key.timestamp.toString();
  const [heads, logs, stateChanges] = await Promise.all([
    db.query<HeadRow>(sql`with ${involvement(key)}
      select 1 as involved, r.*, eth.*, rf.*
      from inv
      left join lateral (
        select ${RESULT_COLUMNS}, (select e.evm_address from entity e where e.id = cr.contract_id) as evm_address
        from contract_result cr
        where cr.consensus_timestamp = ${ts} and ${involvedContract(sql`cr.contract_id`)}
        limit 1
      ) r on true
      left join lateral (
        select etht.access_list as eth_access_list, etht.call_data as eth_call_data, etht.call_data_id as eth_call_data_id,
          etht.chain_id as eth_chain_id, etht.consensus_timestamp as eth_consensus_timestamp, etht.gas_limit as eth_gas_limit,
          etht.gas_price as eth_gas_price, etht.max_fee_per_gas as eth_max_fee_per_gas,
          etht.max_priority_fee_per_gas as eth_max_priority_fee_per_gas, etht.nonce as eth_nonce,
          etht.signature_r as eth_signature_r, etht.signature_s as eth_signature_s, etht.signature_v as eth_signature_v,
          etht.type as eth_type, etht.recovery_id as eth_recovery_id, etht.to_address as eth_to_address, etht.value as eth_value
        from ethereum_transaction etht
        join transaction t on t.consensus_timestamp = etht.consensus_timestamp and t.payer_account_id = etht.payer_account_id
        where etht.consensus_timestamp = ${ts} and etht.payer_account_id = inv.payer_account_id
        limit 1
      ) eth on true
      left join lateral (
        select hash as block_hash, index as block_index, gas_used as block_gas_used from record_file
        where consensus_end >= ${ts} order by consensus_end limit 1
      ) rf on true`),
    db.query<CallLogRow>(sql`with ${involvement(key)}
      select cl.bloom, cl.contract_id, cl.data, cl.index, cl.topic0, cl.topic1, cl.topic2, cl.topic3, e.evm_address
      from inv
      join contract_log cl on cl.consensus_timestamp = ${ts} and ${involvedContract(sql`cl.contract_id`)}
      left join entity e on e.id = cl.contract_id
      order by cl.index`),
    db.query<StateChangeRow>(sql`with ${involvement(key)}
      select csc.contract_id, csc.slot, csc.value_read, csc.value_written, e.evm_address
      from inv
      join contract_state_change csc on csc.consensus_timestamp = ${ts} and (${stateChangeScope(key)})
      left join entity e on e.id = csc.contract_id
      order by csc.contract_id, csc.slot`),
  ]);
  const head = heads[0];
  if (head === undefined) return { involved: false, result: undefined, eth: undefined, block: undefined, logs, stateChanges };
  const result = head.consensus_timestamp == null ? undefined : (head as DetailedResultRow);
  const eth = head.eth_consensus_timestamp == null ? undefined : (Object.fromEntries(ETH_FIELDS.map((f) => [f, head[`eth_${f}`]])) as unknown as EthereumRow);
  const block = head.block_hash == null ? undefined : ({ hash: head.block_hash, index: head.block_index, gas_used: head.block_gas_used } as BlockRow);
  return { involved: true, result, eth, block, logs, stateChanges };
}

/** The involved contracts' changes without migration rows, plus every change of the path's contract. */
function stateChangeScope(key: CallKey): Sql {
  const others = sql`${involvedContract(sql`csc.contract_id`)} and csc.migration is false`;
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
