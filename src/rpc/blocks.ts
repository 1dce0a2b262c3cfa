/**
 * Blocks as the endpoint names them (record_file: `index` is the block number, `hash` its hash),
 * read as the mirror node's /blocks reads them: the newest by consensus end, one by number, one by
 * the prefix of its hash.
 *
 * The columns are selected as text under their own names, so every `order by` names the table's
 * column (`record_file.consensus_end`): a bare `consensus_end` would sort by the text output column,
 * a sequential scan and sort of every record file instead of the primary key's first entry.
 */
import type { Db } from '../db/db.ts';
import { sql } from '../db/sql.ts';

export interface Block {
  number: bigint;
  /** Consensus range of the block, inclusive ns. */
  start: bigint;
  end: bigint;
  /** 48 bytes, hex without 0x. */
  hash: string;
}

interface BlockRow {
  index: string;
  consensus_start: string;
  consensus_end: string;
  hash: string;
}

const COLUMNS = sql`index::text as index, consensus_start::text as consensus_start, consensus_end::text as consensus_end, hash`;

const toBlock = (row: BlockRow | undefined): Block | undefined =>
  row === undefined ? undefined : { number: BigInt(row.index), start: BigInt(row.consensus_start), end: BigInt(row.consensus_end), hash: row.hash };

export async function latestBlock(db: Db): Promise<Block | undefined> {
  const [row] = await db.query<BlockRow>(sql`select ${COLUMNS} from record_file order by record_file.consensus_end desc limit 1`);
  return toBlock(row);
}

export async function blockByNumber(db: Db, number: bigint): Promise<Block | undefined> {
  if (number > 9223372036854775807n) return undefined;
  const [row] = await db.query<BlockRow>(sql`select ${COLUMNS} from record_file where index = ${number.toString()} limit 1`);
  return toBlock(row);
}

/**
 * The hashes that start with `prefix` (lowercase hex digits) as a half-open range in the "C"
 * collation: from the prefix to the prefix with its last digit moved up (after "f", "g": no hash
 * has it). A range on bound parameters keeps record_file__hash in a generic plan, where `like $1`
 * cannot use it.
 */
export function hashPrefixRange(prefix: string): { from: string; to: string } {
  const last = prefix.charCodeAt(prefix.length - 1);
  const next = last === 0x39 ? 'a' : String.fromCharCode(last + 1);
  return { from: prefix, to: prefix.slice(0, -1) + next };
}

/**
 * The statement of blockByHash (exported for its plan test). The range is read in a materialized
 * subquery: with the order and limit beside it, the generic plan walks record_file_pkey backwards
 * (its estimate of a range of two parameters is hundreds of rows) instead of reading the one entry.
 */
export function blockByHashStatement(hexDigits: string) {
  const { from, to } = hashPrefixRange(hexDigits.toLowerCase());
  return sql`with found as materialized (
      select index, consensus_start, consensus_end, hash from record_file where hash collate "C" >= ${from} and hash collate "C" < ${to})
    select ${COLUMNS} from found order by found.consensus_end desc limit 1`;
}

/** The block whose hash starts with these hex digits (a 32-byte Ethereum-style block hash is the first 32 of 48 bytes). */
export async function blockByHash(db: Db, hexDigits: string): Promise<Block | undefined> {
  const [row] = await db.query<BlockRow>(blockByHashStatement(hexDigits));
  return toBlock(row);
}

/** Blocks after `number`, oldest first, at most `limit` (eth_getFilterChanges of a block filter). */
export async function blocksAfter(db: Db, number: bigint, limit: number): Promise<Block[]> {
  const rows = await db.query<BlockRow>(sql`select ${COLUMNS} from record_file where index > ${number.toString()} order by record_file.index limit ${limit}`);
  return rows.map((row) => toBlock(row)!);
}
