/** The transactions of a hash, for the network-wide logs listing's `transaction.hash` filter. */
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { INT64, type Range, rangeSql } from '../../db/range.ts';
import { and, direction, type Order, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';

export interface HashedTransaction {
  consensus_timestamp: string;
  hash: HexBytes;
}

/**
 * Transactions whose hash starts with these 32 bytes (the 48-byte Hedera hash, or the 32-byte
 * Ethereum hash the importer wrote there), within the user's timestamp bounds, in the page order.
 * The partition is chosen by the first byte, as the importer's get_transaction_info_by_hash does; on
 * the v2 layout, where the table is distributed by distribution_id (the hash's first two bytes as a
 * signed big-endian integer), the shard by that, as v2's get_transaction_info_by_hash does.
 */
export function findTransactionsByHash(db: Db, first32: Buffer, timestamp: Range<bigint>, order: Order, limit: number): Promise<HashedTransaction[]> {
  return db.query<HashedTransaction>(sql`select consensus_timestamp, hash from transaction_hash
    where ${and([
      citusSafe(dbLayout(db)) ? sql`distribution_id = ${first32.readInt16BE(0)}` : sql`mod(get_byte(hash, 0), 32) = ${first32[0]! % 32}`,
      sql`substring(hash from 1 for 32) = ${first32}`,
      ...rangeSql(sql`consensus_timestamp`, timestamp, 'bigint', INT64),
    ])}
    order by consensus_timestamp ${direction(order)}
    limit ${limit}`);
}
