/** The transaction lookups of GET /api/v1/contracts/results/{transactionIdOrHash}. Nothing of HTTP. */
import type { Db } from '../../db/db.ts';
import { sql } from '../../db/sql.ts';

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
