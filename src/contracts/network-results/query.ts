/** The statements of GET /api/v1/contracts/results. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { sql } from '../../db/sql.ts';
import type { DetailedResultRow, EthereumRow } from '../shared/detailedResult.ts';

export { findResults } from '../results/query.ts';
export { findBlockByHashPrefix, findBlockByNumber } from '../results/query.ts';

/** The consensus timestamp of the first transaction, 0 without any (bindTimestampRange's lower end). */
export async function findFirstTransaction(db: Db): Promise<bigint> {
  const rows = await db.query<{ consensus_timestamp: string }>(
    sql`select consensus_timestamp from transaction order by consensus_timestamp limit 1`,
  );
  return rows.length === 0 ? 0n : BigInt(rows[0]!.consensus_timestamp);
}

/** The Ethereum transactions of a page of results (the columns the list reads), by primary key. */
export function findEthereumTransactions(db: Db, rows: readonly DetailedResultRow[]): Promise<EthereumRow[]> {
  const timestamps = rows.map((r) => r.consensus_timestamp);
  const payers = [...new Set(rows.map((r) => r.payer_account_id).filter((p): p is string => p !== null))];
  return db.query<EthereumRow>(sql`select access_list, chain_id, consensus_timestamp, gas_price, max_fee_per_gas,
      max_priority_fee_per_gas, nonce, signature_r, signature_s, signature_v, type, recovery_id, to_address, value
    from ethereum_transaction
    where consensus_timestamp = any(${timestamps}::bigint[]) and payer_account_id = any(${payers}::bigint[])`);
}

/** A record file candidate of one timestamp: the first file ending at or after it. */
export interface PageBlockRow {
  ts: string;
  consensus_start: string;
  hash: string;
  index: string;
  gas_used: string | null;
}

/**
 * For each timestamp, the first record file ending at or after it and at most `slackNs` after the
 * page's latest timestamp (one primary-key probe each); the caller keeps it only if it contains
 * the timestamp.
 */
export function findPageBlocks(db: Db, timestamps: readonly string[], slackNs: bigint): Promise<PageBlockRow[]> {
  const latest = timestamps.reduce((m, t) => (BigInt(t) > m ? BigInt(t) : m), 0n);
  return db.query<PageBlockRow>(sql`select t.ts::text as ts, r.consensus_start, r.hash, r.index, r.gas_used
    from unnest(${timestamps}::bigint[]) as t(ts)
    cross join lateral (
      select consensus_start, hash, index, gas_used from record_file
      where consensus_end >= t.ts and consensus_end <= ${(latest + slackNs).toString()}
      order by consensus_end
      limit 1
    ) r`);
}

/** The Ethereum transactions and block candidates of a page of results. */
export interface PageExtras {
  eths: EthereumRow[];
  candidates: PageBlockRow[];
}

type ExtrasRow = Omit<EthereumRow, 'consensus_timestamp'> & {
  ts: string;
  eth_ts: string | null;
  consensus_start: string | null;
  hash: string | null;
  index: string | null;
  gas_used: string | null;
};

/**
 * findEthereumTransactions and findPageBlocks in one round trip on one table per timestamp; on
 * Citus (the v2 layout) as the two statements, since record_file is local to the coordinator and
 * ethereum_transaction distributed.
 */
export async function findPageExtras(db: Db, rows: readonly DetailedResultRow[], slackNs: bigint): Promise<PageExtras> {
  const timestamps = rows.map((r) => r.consensus_timestamp);
  if (citusSafe(dbLayout(db))) {
    const [eths, candidates] = await Promise.all([findEthereumTransactions(db, rows), findPageBlocks(db, timestamps, slackNs)]);
    return { eths, candidates };
  }
  const latest = timestamps.reduce((m, t) => (BigInt(t) > m ? BigInt(t) : m), 0n);
  const payers = [...new Set(rows.map((r) => r.payer_account_id).filter((p): p is string => p !== null))];
  const found = await db.query<ExtrasRow>(sql`select t.ts::text as ts, e.consensus_timestamp as eth_ts, e.access_list, e.chain_id,
      e.gas_price, e.max_fee_per_gas, e.max_priority_fee_per_gas, e.nonce, e.signature_r, e.signature_s, e.signature_v,
      e.type, e.recovery_id, e.to_address, e.value, r.consensus_start, r.hash, r.index, r.gas_used
    from unnest(${timestamps}::bigint[]) as t(ts)
    left join ethereum_transaction e on e.consensus_timestamp = t.ts and e.payer_account_id = any(${payers}::bigint[])
    left join lateral (
      select consensus_start, hash, index, gas_used from record_file
      where consensus_end >= t.ts and consensus_end <= ${(latest + slackNs).toString()}
      order by consensus_end
      limit 1
    ) r on true`);
  const eths: EthereumRow[] = [];
  const candidates: PageBlockRow[] = [];
  for (const row of found) {
    const { ts, eth_ts, consensus_start, hash, index, gas_used, ...eth } = row;
    if (eth_ts !== null) eths.push({ ...eth, consensus_timestamp: eth_ts });
    if (consensus_start !== null) candidates.push({ ts, consensus_start, hash: hash!, index: index!, gas_used });
  }
  return { eths, candidates };
}
