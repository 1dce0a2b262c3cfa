/**
 * Blocks: every read of record_file, the importer's record files, one a block. Its number is
 * `number` (the table's `index`), its consensus range `consensus_start` to `consensus_end`
 * (inclusive ns, the primary key is the end), its hash 48 bytes of lower-case hex. The contract
 * routes, the live feed, the Indexed-Through bound (settled.ts) and the JSON-RPC code read blocks
 * here and nowhere else; schema detection (layout.ts, readiness.ts) only asks whether the table is
 * there.
 *
 * Int8 columns come as their decimal text (types.ts), and a read selects them uncast under their own
 * names: an `order by consensus_end` beside `consensus_end::text as consensus_end` would sort by the
 * text output column, a sequential scan and sort of every record file instead of the primary key's
 * first entry.
 *
 * Three statements join record_file inside a bigger one, where a read of its own would cost a round
 * trip (the page's statement comes first) or lose a snapshot: the logs page (logs/query.ts), the
 * network results page's Ethereum transactions (results/query.ts, findPageExtras) and a call
 * (call/query.ts) take their block from blockOfTimestampSql, one primary-key probe per row; the live
 * feed's tick (logs/live/feed.ts) reads its files and their logs in one statement (blocksEndingAfterSql);
 * the top-level walk (results/topLevel.ts) bounds its timestamps by newestBlockSql in the same
 * snapshot. On the v2 layout (Citus: record_file is local to the coordinator) each of them reads its
 * blocks here in a statement of its own (blockOfTimestamp, blocksOfTimestamps, blocksEndingAfter).
 */
import { INT64_MAX } from '../format/entityId.ts';
import type { Db } from './db.ts';
import { type Sql, sql } from './sql.ts';

/** One record file. */
export interface Block {
  /** The block number (record_file.index). */
  number: string;
  consensus_start: string;
  consensus_end: string;
  /** 48 bytes, lower-case hex without 0x. */
  hash: string;
  prev_hash: string;
  /** -1 or null where the importer has none. */
  gas_used: string | null;
  /** Hex without 0x; null or empty where the importer has none. */
  logs_bloom: string | null;
  size: number | null;
}

/** What the reads for the items of a page (results, logs, a call) take of a block: not its header. */
export type ItemBlock = Pick<Block, 'number' | 'consensus_start' | 'consensus_end' | 'hash' | 'gas_used'>;

const COLUMNS = sql`index as number, consensus_start, consensus_end, hash, prev_hash, gas_used, logs_bloom, size`;
const ITEM_COLUMNS = sql`index as number, consensus_start, consensus_end, hash, gas_used`;

/** The newest block, as a statement (to bound another statement's reads in its snapshot). */
export const newestBlockSql = sql`select ${COLUMNS} from record_file order by consensus_end desc limit 1`;

/** The newest block (greatest consensus end); undefined on a database without one. */
export async function newestBlock(db: Db): Promise<Block | undefined> {
  const [row] = await db.query<Block>(newestBlockSql);
  return row;
}

/** The block with this number. */
export async function blockByNumber(db: Db, number: bigint): Promise<Block | undefined> {
  if (number > INT64_MAX) return undefined;
  const [row] = await db.query<Block>(sql`select ${COLUMNS} from record_file where index = ${number.toString()} limit 1`);
  return row;
}

/**
 * The hashes that start with `prefix` (hex digits) as a half-open range in the "C" collation: from
 * the prefix to the prefix with its last digit moved up (after "9", "a"; after "f", "g": no hash has
 * it). It selects exactly the strings that start with the prefix, and, unlike `like $1 || '%'`, it
 * is a condition record_file__hash (hash collate "C") answers in a generic plan.
 */
export function hashPrefixRange(prefix: string): { from: string; to: string } {
  const last = prefix.charCodeAt(prefix.length - 1);
  const next = last === 0x39 ? 'a' : String.fromCharCode(last + 1);
  return { from: prefix, to: prefix.slice(0, -1) + next };
}

/**
 * The statement of blockByHashPrefix (exported for its plan test): the range alone, limit 1. In a
 * generic plan it is an index scan of record_file__hash that stops at its first entry (on the v2
 * layout, partition by partition until one holds it). No `like` beside the range (a filter that made
 * it a bitmap scan), and no order: `order by consensus_end` walks the primary key unless the range is
 * read first (a materialized CTE and a sort), `order by hash` merges every partition's index on v2.
 * Hashes are unique in practice (SHA-384 and prefixes of 32 bytes or more): which of several the
 * prefix matches is not defined.
 */
export function blockByHashPrefixStatement(prefix: string): Sql {
  const { from, to } = hashPrefixRange(prefix);
  return sql`select ${COLUMNS} from record_file where hash collate "C" >= ${from} and hash collate "C" < ${to} limit 1`;
}

/**
 * The block whose hash starts with these hex digits, compared as written (stored hashes are
 * lower-case: the caller lowers them where its interface ignores case). A 32-byte Ethereum-style
 * block hash is the first 32 of the 48 bytes.
 */
export async function blockByHashPrefix(db: Db, prefix: string): Promise<Block | undefined> {
  const [row] = await db.query<Block>(blockByHashPrefixStatement(prefix));
  return row;
}

/** The blocks after number `after`, in their order, at most `limit` (eth_getFilterChanges, newHeads). */
export function blocksAfter(db: Db, after: bigint, limit: number): Promise<Block[]> {
  return db.query<Block>(sql`select ${COLUMNS} from record_file where index > ${after.toString()} order by record_file.index limit ${limit}`);
}

/** The blocks ending after `end`, oldest first, at most `limit`, as a statement (the live feed's tick). */
export const blocksEndingAfterSql = (end: bigint, limit: number): Sql =>
  sql`select ${ITEM_COLUMNS} from record_file where consensus_end > ${end.toString()} order by consensus_end limit ${limit}`;

/** The blocks ending after `end`, oldest first, at most `limit`. */
export function blocksEndingAfter(db: Db, end: bigint, limit: number): Promise<ItemBlock[]> {
  return db.query<ItemBlock>(blocksEndingAfterSql(end, limit));
}

/**
 * The latest of `timestamps` (decimal nanoseconds) plus `slackNs`, at most int64's maximum (a
 * `consensus_end` cannot be later, and a larger parameter would fail the statement); `slackNs` alone
 * for no timestamps. How far the block search of a page may reach: a row's block ends no later than
 * the close interval of logs (the slack of results) after the page's latest row.
 */
export function blockSearchEnd(timestamps: readonly string[], slackNs: bigint): string {
  let latest = timestamps.length === 0 ? 0n : BigInt(timestamps[0]!);
  for (const timestamp of timestamps) {
    const value = BigInt(timestamp);
    if (value > latest) latest = value;
  }
  return (latest < INT64_MAX - slackNs ? latest + slackNs : INT64_MAX).toString();
}

/**
 * The block of timestamp `ts` as the reference finds it, as a statement for a lateral join: the first
 * block ending at or after it (and, with `searchEnd`, no later than that), one probe of the primary
 * key. It contains `ts` only when it starts at or before it, which the caller checks where the
 * reference does.
 */
export function blockOfTimestampSql(ts: Sql | string, searchEnd?: Sql | string): Sql {
  const bound = searchEnd === undefined ? sql`` : sql` and consensus_end <= ${searchEnd}`;
  return sql`select ${ITEM_COLUMNS} from record_file where consensus_end >= ${ts}${bound} order by consensus_end limit 1`;
}

/** The block of timestamp `ts` (blockOfTimestampSql) in a statement of its own. */
export async function blockOfTimestamp(db: Db, ts: string): Promise<ItemBlock | undefined> {
  const [row] = await db.query<ItemBlock>(blockOfTimestampSql(ts));
  return row;
}

/**
 * The block of each of a page's timestamps (blockOfTimestampSql, no later than `searchEnd`), in one
 * statement: one primary-key probe per timestamp. Timestamps without one are left out.
 */
export function blocksOfTimestamps(db: Db, timestamps: readonly string[], searchEnd: string): Promise<Array<ItemBlock & { ts: string }>> {
  return db.query<ItemBlock & { ts: string }>(sql`select t.ts::text as ts, r.*
    from unnest(${timestamps}::bigint[]) as t(ts)
    cross join lateral (${blockOfTimestampSql(sql`t.ts`, searchEnd)}) r`);
}

/**
 * The blocks ending from `from` to `to` that start no later than `startBy`, oldest first, at most
 * `limit`: one range of the primary key (the blocks a page of logs spans).
 */
export function blocksEndingBetween(db: Db, from: string, to: string, startBy: string, limit: number): Promise<ItemBlock[]> {
  return db.query<ItemBlock>(sql`select ${ITEM_COLUMNS} from record_file
    where consensus_end >= ${from} and consensus_end <= ${to} and consensus_start <= ${startBy}
    order by consensus_end
    limit ${limit}`);
}

/**
 * The consensus span of the blocks numbered from `first` to `last` (either open): the start of the
 * first block numbered `first` or later, the end of the last numbered `last` or earlier, in one
 * statement of two probes of record_file__index. A bound given but without such a block is null.
 */
export async function blockSpan(db: Db, first: bigint | undefined, last: bigint | undefined): Promise<{ start: string | null; end: string | null }> {
  const start =
    first === undefined ? sql`null::bigint` : sql`(select consensus_start from record_file where index >= ${first.toString()} order by index limit 1)`;
  const end = last === undefined ? sql`null::bigint` : sql`(select consensus_end from record_file where index <= ${last.toString()} order by index desc limit 1)`;
  const [row] = await db.query<{ start: string | null; end: string | null }>(sql`select ${start} as start, ${end} as end`);
  return { start: row?.start ?? null, end: row?.end ?? null };
}
