/**
 * The statements of the call family: one call in full, for /contracts/{id}/results/{timestamp} and
 * /contracts/results/{transactionIdOrHash}, and the transaction lookups of the latter. Nothing of HTTP.
 */
import { type ItemBlock, blockOfTimestampSql } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { findCallSplit } from './split.ts';
import { type Sql, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';
import type { CallLogRow, DetailedResultRow, EthereumRow, StateChangeRow } from '../common/detailedResult.ts';
import { type CallKey, type CallRows, RESULT_COLUMNS } from './rows.ts';

/** The involvement row: the payer and the contracts of the transaction (all, when the list is empty). */
const involvement = (key: CallKey) => sql`inv as (
    select payer_account_id, contract_ids from contract_transaction
    where consensus_timestamp = ${key.timestamp.toString()} and entity_id = ${key.entityId.toString()}
  )`;

const involvedContract = (column: Sql) => sql`(cardinality(inv.contract_ids) = 0 or ${column} = any(inv.contract_ids))`;

type HeadRow = Partial<DetailedResultRow> & { [column: `eth_${string}` | `block_${string}`]: unknown };

const BLOCK_FIELDS = ['number', 'consensus_start', 'consensus_end', 'hash', 'gas_used'] as const;

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
      select 1 as involved, r.*, eth.*, rf.number as block_number, rf.consensus_start as block_consensus_start,
        rf.consensus_end as block_consensus_end, rf.hash as block_hash, rf.gas_used as block_gas_used
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
      left join lateral (${blockOfTimestampSql(ts)}) rf on true`),
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
  const block = head.block_hash == null ? undefined : (Object.fromEntries(BLOCK_FIELDS.map((f) => [f, head[`block_${f}`]])) as unknown as ItemBlock);
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

/** A contract transaction found by hash: its time and the entity whose involvement row to read. */
export interface HashMatch {
  consensus_timestamp: string;
  entity_id: string;
}

/** Results of DUPLICATE_TRANSACTION (11) and WRONG_NONCE (312) are never the answer. */
const EXCLUDED_RESULTS = [11, 312];

/** The earliest non-excluded contract transaction whose 32-byte hash (or Hedera hash prefix) this is. */
export async function findByHash(db: Db, hash: Buffer): Promise<HashMatch | undefined> {
  const rows = await db.query<HashMatch>(sql`select consensus_timestamp, entity_id from contract_transaction_hash
    where hash = ${hash} and transaction_result <> all(${EXCLUDED_RESULTS}::int[])
    order by consensus_timestamp
    limit 1`);
  return rows[0];
}

export interface TransactionMatch {
  consensus_timestamp: string;
  type: number;
}

export interface TransactionIdQuery {
  payer: bigint;
  validStartNs: bigint;
  /** The latest consensus timestamp the transaction may have (valid start + the consensus window). */
  latestNs: bigint;
  nonce: number;
}

/** Transactions with this id and nonce (a scheduled execution shares its schedule's id), earliest first. */
export function findByTransactionId(db: Db, q: TransactionIdQuery): Promise<TransactionMatch[]> {
  return db.query<TransactionMatch>(sql`select consensus_timestamp, type from transaction
    where payer_account_id = ${q.payer.toString()}
      and consensus_timestamp >= ${q.validStartNs.toString()} and consensus_timestamp <= ${q.latestNs.toString()}
      and valid_start_ns = ${q.validStartNs.toString()}
      and nonce = ${q.nonce}
      and result <> all(${EXCLUDED_RESULTS}::int[])
    order by consensus_timestamp
    limit 10`);
}
