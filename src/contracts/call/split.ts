/**
 * findCall in the Citus-safe form (src/db/layout.ts): the involvement row first, then every other
 * statement with the payer and the contracts as values, so that each distributed table is filtered
 * on its distribution column (contract_id, payer_account_id) by a value, and the block read from the
 * coordinator-local record_file in a statement of its own (src/db/blocks.ts). One round trip more than the v1 form.
 */
import { blockOfTimestamp } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { type Sql, and, sql } from '../../db/sql.ts';
import { type CallKey, type CallRows, RESULT_COLUMNS } from './rows.ts';
import type { CallLogRow, DetailedResultRow, EthereumRow, StateChangeRow } from '../common/detailedResult.ts';

interface Involvement {
  payer_account_id: string | null;
  contract_ids: string[] | null;
}

export async function findCallSplit(db: Db, key: CallKey): Promise<CallRows> {
  const ts = key.timestamp.toString();
  const [inv] = await db.query<Involvement>(sql`select payer_account_id, contract_ids from contract_transaction
    where consensus_timestamp = ${ts} and entity_id = ${key.entityId.toString()}`);
  if (inv === undefined) return { involved: false, result: undefined, eth: undefined, block: undefined, logs: [], stateChanges: [] };
  const contracts = (inv.contract_ids ?? []).map(String);
  // cardinality 0: every contract of the transaction (old rows), which no key can narrow
  const involved = (column: Sql): Sql[] => (contracts.length === 0 ? [] : [sql`${column} = any(${contracts}::bigint[])`]);
  const where = (conditions: Sql[]) => sql`where ${and(conditions)}`;
  const path = key.pathContractId.toString();
  const stateScope: Sql[] =
    key.pathContractId === 0n
      ? [...involved(sql`csc.contract_id`), sql`csc.migration is false`]
      : contracts.length === 0
        ? [sql`(csc.contract_id = ${path} or csc.migration is false)`]
        : // the path's contract, or an involved one without migration rows: in this form Citus prunes the
          // shards to those of the named contracts (an AND over `any(...)` and an OR reached all 16)
          [sql`(csc.contract_id = ${path} or (csc.contract_id = any(${contracts}::bigint[]) and csc.migration is false))`];
  const payer = inv.payer_account_id;
  const [results, eths, block, logs, stateChanges] = await Promise.all([
    // the address joined (entity is co-located on the contract's id): as a correlated subquery Citus sent
    // the statement to every shard
    db.query<DetailedResultRow>(sql`select ${RESULT_COLUMNS}, e.evm_address
      from contract_result cr
      left join entity e on e.id = cr.contract_id
      ${where([sql`cr.consensus_timestamp = ${ts}`, ...involved(sql`cr.contract_id`)])}
      limit 1`),
    payer === null
      ? Promise.resolve([])
      : db.query<EthereumRow>(sql`select etht.access_list, etht.call_data, etht.call_data_id, etht.chain_id, etht.consensus_timestamp,
          etht.gas_limit, etht.gas_price, etht.max_fee_per_gas, etht.max_priority_fee_per_gas, etht.nonce, etht.signature_r,
          etht.signature_s, etht.signature_v, etht.type, etht.recovery_id, etht.to_address, etht.value
        from ethereum_transaction etht
        join transaction t on t.consensus_timestamp = etht.consensus_timestamp and t.payer_account_id = etht.payer_account_id
        where etht.consensus_timestamp = ${ts} and etht.payer_account_id = ${payer} and t.payer_account_id = ${payer}
        limit 1`),
    blockOfTimestamp(db, ts),
    db.query<CallLogRow>(sql`select cl.bloom, cl.contract_id, cl.data, cl.index, cl.topic0, cl.topic1, cl.topic2, cl.topic3, e.evm_address
      from contract_log cl
      left join entity e on e.id = cl.contract_id
      ${where([sql`cl.consensus_timestamp = ${ts}`, ...involved(sql`cl.contract_id`)])}
      order by cl.index`),
    db.query<StateChangeRow>(sql`select csc.contract_id, csc.slot, csc.value_read, csc.value_written, e.evm_address
      from contract_state_change csc
      left join entity e on e.id = csc.contract_id
      ${where([sql`csc.consensus_timestamp = ${ts}`, ...stateScope])}
      order by csc.contract_id, csc.slot`),
  ]);
  return { involved: true, result: results[0], eth: eths[0], block, logs, stateChanges };
}
