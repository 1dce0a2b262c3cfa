/**
 * The record file (block) of each log of a page. The page's statement brings each log's candidate
 * file along (query.ts); the Citus-safe form (src/db/layout.ts) reads them in a statement of its own
 * (withBlocks: record_file is a coordinator-local table in v2), through src/db/blocks.ts.
 * assignRecordFiles then attributes the candidates as the reference does.
 */
import { LRUCache } from 'lru-cache';
import { type ItemBlock, blockSearchEnd, blocksEndingBetween, blocksOfTimestamps } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { factStore } from '../../db/facts.ts';
import type { LogRow } from './rows.ts';
import { compareDecimal } from '../../format/decimal.ts';

/** Timestamps whose record file is kept per database and process: a page of 100 logs is at most 100. */
export const MAX_BLOCK_TIMESTAMPS = 50_000;

const blocksOf = (db: Db): LRUCache<string, ItemBlock> =>
  factStore(db, 'logBlocks', () => new LRUCache<string, ItemBlock>({ max: MAX_BLOCK_TIMESTAMPS }));

/**
 * The candidate record file of each distinct timestamp of the page, as logsSql's single statement
 * finds it: the first file ending at or after the log and at most `closeIntervalNs` after the page's
 * latest log, one primary key probe per timestamp.
 *
 * A file found to contain a timestamp (start <= t <= end) is kept for it: a record file never changes
 * once written, and files do not overlap, so the file that contains t is the first one ending at or
 * after t, the candidate whenever it ends within the search, none otherwise. Only the timestamps
 * without one are read.
 */
export async function withBlocks(db: Db, rows: LogRow[], closeIntervalNs: bigint): Promise<LogRow[]> {
  if (rows.length === 0) return rows;
  const timestamps = [...new Set(rows.map((r) => r.consensus_timestamp))];
  const searchEnd = blockSearchEnd(timestamps, closeIntervalNs);
  const cache = blocksOf(db);
  const byTimestamp = new Map<string, ItemBlock>();
  const unknown: string[] = [];
  for (const t of timestamps) {
    const file = cache.get(t);
    if (file === undefined) unknown.push(t);
    else if (compareDecimal(file.consensus_end, searchEnd) <= 0) byTimestamp.set(t, file);
  }
  const files = unknown.length === 0 ? [] : await blocksOfTimestamps(db, unknown, searchEnd);
  for (const { ts, ...file } of files) {
    byTimestamp.set(ts, file);
    if (compareDecimal(file.consensus_start, ts) <= 0) cache.set(ts, file);
  }
  return withFiles(rows, byTimestamp);
}

/** Each row with the record file of its timestamp in `byTimestamp`, or none. */
function withFiles(rows: LogRow[], byTimestamp: ReadonlyMap<string, ItemBlock>): LogRow[] {
  for (const row of rows) {
    const file = byTimestamp.get(row.consensus_timestamp);
    row.block_consensus_start = file?.consensus_start ?? null;
    row.block_consensus_end = file?.consensus_end ?? null;
    row.block_number = file?.number ?? null;
    row.block_hash = file?.hash ?? null;
  }
  return rows;
}

/**
 * The record file (block) of each log of a page, read as one range of record_file's primary key: the
 * files ending from the page's earliest log to `closeIntervalNs` after its latest, that start no later
 * than its latest. Files do not overlap, so the file that contains a log is among them whenever it is
 * the reference's candidate (withBlocks); assignRecordFiles attributes them.
 *
 * The range reads as many files as the page spans blocks, the probes of withBlocks one per distinct
 * timestamp: a page of hundreds of logs from a few blocks (eth_getLogs over 100 blocks) reads a few
 * rows instead of hundreds of probes, and a page of rare logs over many blocks is probed. Which one is
 * chosen by the blocks the page is expected to span, at `blockNs` (the searched blocks' average
 * length) a block; a range that turns out longer than twice the timestamps stops there, and the page
 * is probed.
 */
export async function withBlocksInRange(db: Db, rows: LogRow[], closeIntervalNs: bigint, blockNs: bigint): Promise<LogRow[]> {
  if (rows.length === 0) return rows;
  const timestamps = [...new Set(rows.map((r) => r.consensus_timestamp))].sort(compareDecimal);
  const earliest = timestamps[0]!;
  const latest = timestamps[timestamps.length - 1]!;
  const spans = (BigInt(latest) - BigInt(earliest)) / (blockNs > 0n ? blockNs : 1n) + 1n;
  if (spans > BigInt(timestamps.length)) return withBlocks(db, rows, closeIntervalNs);
  const files = await blocksEndingBetween(db, earliest, blockSearchEnd([latest], closeIntervalNs), latest, 2 * timestamps.length + 1);
  // blocks far shorter than the average here: the range stops, and the page is probed
  if (files.length > 2 * timestamps.length) return withBlocks(db, rows, closeIntervalNs);
  return withFiles(rows, assignRecordFiles(timestamps, files));
}

/**
 * Attributes record files to timestamps exactly as the reference does: the candidate files (sorted
 * in the timestamps' direction) are walked together with the timestamps; a timestamp belongs to a
 * file with consensus_start <= t <= consensus_end, and one that lies in no file gets none.
 * `timestamps` must be ordered (asc or desc) without duplicates.
 */
export function assignRecordFiles(timestamps: readonly string[], files: readonly ItemBlock[]): Map<string, ItemBlock> {
  const result = new Map<string, ItemBlock>();
  if (timestamps.length === 0) return result;
  const desc = compareDecimal(timestamps[0]!, timestamps[timestamps.length - 1]!) > 0;
  const unique = new Map<string, ItemBlock>();
  for (const f of files) unique.set(f.consensus_end, f);
  const sorted = [...unique.values()].sort((a, b) =>
    desc ? compareDecimal(b.consensus_end, a.consensus_end) : compareDecimal(a.consensus_end, b.consensus_end),
  );
  let i = 0;
  for (const file of sorted) {
    const { consensus_start: start, consensus_end: end } = file;
    for (; i < timestamps.length; i++) {
      const t = timestamps[i]!;
      if (compareDecimal(start, t) <= 0 && compareDecimal(t, end) <= 0) result.set(t, file);
      else if (desc ? compareDecimal(t, start) < 0 : compareDecimal(t, end) > 0) break;
    }
  }
  return result;
}

/** The record file (block) of each log of a page, by timestamp, from the candidates the page carries. */
export function pageBlocks(rows: readonly LogRow[]): Map<string, ItemBlock> {
  const timestamps: string[] = [];
  const files: ItemBlock[] = [];
  for (const row of rows) {
    if (row.consensus_timestamp !== timestamps[timestamps.length - 1]) timestamps.push(row.consensus_timestamp);
    if (row.block_consensus_end !== null) {
      files.push({ consensus_start: row.block_consensus_start!, consensus_end: row.block_consensus_end, number: row.block_number!, hash: row.block_hash!, gas_used: null }); // gas: no log shows it
    }
  }
  return assignRecordFiles(timestamps, files);
}
