/**
 * Newest-first pages on time-partitioned tables (contract_result and contract_log in the importer's
 * v2 layout: a partition per month since 2019). A page without a lower timestamp bound makes the
 * server plan and open every partition (88 on the Citus cluster of docs/scaling.md, each shard's
 * worker plans them per statement: 7.6 ms of PostgreSQL CPU for one contract's logs), though the
 * newest rows lie in the last one or two. Such a page is read in two steps split at one timestamp:
 * the rows at or after it (a partition or two), and only when those do not fill the page, the rows
 * before it, with the rest of the limit. Every row of the first step precedes every row of the
 * second in the page's order, so the two together are exactly the page the whole range gives.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/db.ts';
import { factStore } from '../../db/facts.ts';
import { dbLayout } from '../../db/layout.ts';
import { INT64, type Range, narrow } from '../../db/range.ts';
import type { Order } from '../../db/sql.ts';
import { settledEnd, settledHere } from '../../db/settled.ts';

/** The part of the range a step reads: from `from` (inclusive) to `before` (exclusive) or `through` (inclusive), each where given. */
export interface Part {
  from?: bigint;
  before?: bigint;
  through?: bigint;
}

/**
 * Where a page splits (`at`), and its ceiling: no row can lie after the newest record file's end plus a
 * day (CEILING_MARGIN_NS), so partitions after that (made ahead of time by the importer) are not read.
 */
export interface Split {
  at: bigint;
  ceiling: bigint;
}

/**
 * How far after the newest record file's end (read at most a second or a statement timeout ago) a row
 * may already be: a day of consensus time, where an importer catching up writes a few minutes' worth
 * per second.
 */
export const CEILING_MARGIN_NS = 86_400_000_000_000n;

/** The range narrowed to the part. */
export function within(range: Range<bigint>, part: Part): Range<bigint> {
  let narrowed = range;
  if (part.from !== undefined) narrowed = narrow(narrowed, 'gte', part.from, INT64);
  if (part.before !== undefined) narrowed = narrow(narrowed, 'lt', part.before, INT64);
  if (part.through !== undefined) narrowed = narrow(narrowed, 'lte', part.through, INT64);
  return narrowed;
}

/** Reads up to `limit` rows of the page's range narrowed to `part` (none: the whole range), in the page's order. */
export type ReadPart<R> = (part: Part | undefined, limit: number) => Promise<R[]>;

/**
 * What the older step learns and uses: the rows of `key` (a table's rows of one contract, or of every
 * contract, under the conditions every request of that key has) all lie at or after a timestamp. The
 * step of a page with no other condition (`open`) that does not fill its limit has seen every such row
 * before the split: the oldest it returned, or none at all. Rows are written in consensus order and the
 * split lies before the newest record file, so no row can appear before either later. Pages of the key
 * then read the older part from there, and skip it when nothing can be there.
 */
export interface History {
  db: Db;
  key: string;
  open: boolean;
}

/** Keys kept per database: a key of about 30 characters and a bigint each. */
export const MAX_HISTORY_KEYS = 100_000;

const historyOf = (db: Db): LRUCache<string, bigint> => factStore(db, 'newestFirst.history', () => new LRUCache<string, bigint>({ max: MAX_HISTORY_KEYS }));

/**
 * The split timestamp for `db`: `spanNs` (db.newestFirstSpan, a week: one or two monthly partitions)
 * before the end of its newest record file, read at most once a second in the memo the cache
 * shares (settledHere; any value gives the same rows, so an old one costs only speed). Undefined
 * where the tables are not partitioned or no record file is there.
 */
export async function splitAt(db: Db, spanNs: bigint): Promise<Split | undefined> {
  if (dbLayout(db)?.partitioned !== true) return undefined;
  const end = settledEnd(await settledHere(db));
  return end === undefined ? undefined : { at: end - spanNs, ceiling: end + CEILING_MARGIN_NS };
}

/**
 * The page: in two steps (above) for a newest-first page where `split` is known, an oldest-first page
 * from where the rows of `history` start, else in one read. `timestampOf` gives a row's consensus
 * timestamp, for `history`.
 */
export async function newestFirst<R>(
  split: Split | undefined,
  order: Order,
  limit: number,
  read: ReadPart<R>,
  history?: History & { timestampOf: (row: R) => bigint },
): Promise<R[]> {
  if (split === undefined) return read(undefined, limit);
  const { at, ceiling } = split;
  const known = history && historyOf(history.db);
  const from = known?.get(history!.key);
  if (order === 'asc') {
    // oldest first: from where the rows start; an open page read from the beginning shows where that is
    // (its first row, or nowhere before the split when it has none)
    const rows = await read(from === undefined ? { through: ceiling } : { from, through: ceiling }, limit);
    if (known && history!.open && from === undefined) known.set(history!.key, rows.length > 0 ? history!.timestampOf(rows[0]!) : at);
    return rows;
  }
  const recent = await read({ from: at, through: ceiling }, limit);
  if (recent.length >= limit) return recent;
  if (from !== undefined && from >= at) return recent;
  const rest = limit - recent.length;
  const older = await read(from === undefined ? { before: at } : { from, before: at }, rest);
  if (known && history!.open && older.length < rest) {
    // the oldest row is the last one; none: nothing before the split
    const first = older.length > 0 ? history!.timestampOf(older[older.length - 1]!) : at;
    if (from === undefined || first > from) known.set(history!.key, first);
  }
  return recent.concat(older);
}
