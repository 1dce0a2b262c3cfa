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
import type { Db } from '../../db/db.ts';
import { dbLayout } from '../../db/layout.ts';
import type { Order } from '../../db/sql.ts';
import { SettledMemo, readSettled } from '../../http/cache/settled.ts';

/** The part of the range a step reads: at or after the split, or before it. */
export type Part = { operator: 'gte' | 'lt'; value: bigint };

/** Reads up to `limit` rows of the page's range narrowed to `part` (none: the whole range), in the page's order. */
export type ReadPart<R> = (part: Part | undefined, limit: number) => Promise<R[]>;

const memos = new WeakMap<Db, SettledMemo<bigint>>();

/**
 * The split timestamp for `db`: `spanNs` (db.newestFirstSpan, a week: one or two monthly partitions)
 * before the end of its newest record file, read at most once a second (any value gives the same
 * rows, so an old one costs only speed). Undefined where the tables are not partitioned or no record
 * file is there.
 */
export async function splitAt(db: Db, spanNs: bigint): Promise<bigint | undefined> {
  if (dbLayout(db)?.partitioned !== true) return undefined;
  let memo = memos.get(db);
  if (memo === undefined) memos.set(db, (memo = new SettledMemo<bigint>()));
  const end = await memo.get(async () => (await readSettled(db))?.end);
  return end === undefined ? undefined : end - spanNs;
}

/** The page: in two steps (above) for a newest-first page where `split` is known, else in one. */
export async function newestFirst<R>(split: bigint | undefined, order: Order, limit: number, read: ReadPart<R>): Promise<R[]> {
  if (split === undefined || order !== 'desc') return read(undefined, limit);
  const recent = await read({ operator: 'gte', value: split }, limit);
  if (recent.length >= limit) return recent;
  const older = await read({ operator: 'lt', value: split }, limit - recent.length);
  return recent.concat(older);
}
