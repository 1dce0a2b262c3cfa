import type { Db } from '../../src/db/db.ts';

/** Order of the rows of each table the generator writes (a unique key). */
export const TABLE_ORDER: Record<string, string> = {
  entity: 'id',
  entity_history: 'id, timestamp_range',
  contract: 'id',
  file_data: 'consensus_timestamp',
  record_file: 'consensus_end',
  contract_result: 'consensus_timestamp',
  contract_log: 'consensus_timestamp, index',
  transaction: 'consensus_timestamp',
  ethereum_transaction: 'consensus_timestamp',
  contract_transaction_hash: 'consensus_timestamp, hash',
  contract_transaction: 'consensus_timestamp, entity_id',
  transaction_hash: 'consensus_timestamp, hash',
  contract_action: 'consensus_timestamp, index',
  contract_state_change: 'consensus_timestamp, contract_id, slot',
  contract_state: 'contract_id, slot',
  address_book: 'start_consensus_timestamp',
};

/** md5 of every row's text form, per table, in key order: equal checksums mean equal rows. */
export async function tableChecksums(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [table, order] of Object.entries(TABLE_ORDER)) {
    const [row] = await db.query<{ sum: string; n: string }>(
      `select md5(coalesce(string_agg(md5(t::text), '' order by ${order}), '')) as sum, count(*) as n from ${table} t`,
    );
    out[table] = `${row!.n}:${row!.sum}`;
  }
  return out;
}
