/**
 * The logs of a search, page by page, in the relay's order, each page as the JSON text of its logs:
 * never more than one page (rpc.pageSize logs, plus the logs of one timestamp held back) in memory,
 * whatever the range. The statement is the logs listings' own (src/contracts/logs/query.ts, findLogs)
 * with the (timestamp, index) boxes after the last log written; a page's addresses and record files
 * are read apart from it (`apart`): pages of hundreds of logs from a few blocks read their
 * blocks as one range, where the listings' statement probes once per log.
 *
 * Each statement reads one window of consensus time at most, so that no statement scans without
 * bound, whatever the range (rpc.timestampRangeLimit lifted) and however rare the logs in it (a rare
 * topic of a dense contract), and none runs into db.pool.statementTimeout: a window a statement has
 * read to its end is done, and the next one starts after it. The first window is a day; the next
 * twice as long after a statement under 250 ms, a quarter as long (down to a second) after one over a
 * quarter of the statement timeout. A range of a day or less is one window: the width only matters
 * for longer searches.
 *
 * The relay's order, oldest first: it asks the mirror node with order=asc. Without addresses the
 * network-wide listing's (timestamp, then index ascending); with addresses it concatenates the
 * per-address listings (each oldest first) and sorts them by timestamp with V8's stable sort (its
 * comparator answers 1 for equal timestamps, which the sort treats as equal), so within a timestamp
 * by the addresses' order, then index ascending.
 */
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { INT32, INT64, type Range, emptyRange, narrow } from '../db/range.ts';
import { pageBlocks } from '../contracts/logs/blocks.ts';
import type { Box } from '../contracts/logs/params.ts';
import { findLogs } from '../contracts/logs/query.ts';
import type { LogRow } from '../contracts/logs/rows.ts';
import type { LogSearch } from './logSearch.ts';
import { rpcLogPageBytes } from './logView.ts';
import { pageGateOf, pageTurn } from './pageGate.ts';

interface Cursor {
  timestamp: bigint;
  index: number;
}

const between = (from: bigint, to: bigint): Range<bigint> => narrow(narrow(emptyRange<bigint>(), 'gte', from, INT64), 'lte', to, INT64);

const FIRST_WINDOW_NS = 86_400_000_000_000n;
const MIN_WINDOW_NS = 1_000_000_000n;

/** The next window's width after a statement of `ms` milliseconds (the statement timeout `timeoutMs`). */
export function nextWidth(width: bigint, ms: number, timeoutMs: number): bigint {
  if (ms < 250) return width * 2n;
  if (ms > timeoutMs / 4) return width / 4n > MIN_WINDOW_NS ? width / 4n : MIN_WINDOW_NS;
  return width;
}

/** The boxes of the range after `cursor`, oldest first (all of it without one). */
export function boxesAfter(search: Pick<LogSearch, 'from' | 'to'>, cursor: Cursor | undefined): Box[] {
  const all = emptyRange<bigint>();
  if (cursor === undefined) return [{ timestamp: between(search.from, search.to), index: all }];
  const sameTime = between(cursor.timestamp, cursor.timestamp);
  const rest = between(cursor.timestamp + 1n, search.to);
  return [
    { timestamp: sameTime, index: narrow(all, 'gt', BigInt(cursor.index), INT32) },
    { timestamp: rest, index: all },
  ].filter((box) => !box.timestamp.empty && !box.index.empty);
}

/** Logs of one timestamp in the relay's merge order: by the addresses' order, then index ascending. */
function relayGroupOrder(rows: LogRow[], order: Map<string, number>): LogRow[] {
  return rows.sort((a, b) => (order.get(a.contract_id) ?? 0) - (order.get(b.contract_id) ?? 0) || a.index - b.index);
}

/** What a walk of the pages has written so far: the block number of the last (newest) log (eth_getFilterChanges). */
export interface PagesProgress {
  lastBlock?: bigint;
}

/**
 * A page's logs as the bytes of their JSON texts, separated by commas; after an earlier page
 * (`continued`), with a comma before its first log. The record files are attributed again over the
 * page as written: a timestamp held back from one read may find its file among the next read's rows.
 */
function json(rows: readonly LogRow[], progress: PagesProgress | undefined, continued: boolean): Buffer {
  const blocks = pageBlocks(rows);
  const text = rpcLogPageBytes(rows, (row) => blocks.get(row.consensus_timestamp), continued);
  const last = rows.length > 0 ? blocks.get(rows[rows.length - 1]!.consensus_timestamp) : undefined;
  if (progress && last !== undefined) progress.lastBlock = BigInt(last.number);
  return text;
}

/**
 * The search's logs as JSON text, one chunk of bytes per page, that joined make the items of one array:
 * logs separated by commas, every page after the first starting with one (no chunk is empty).
 */
export async function* logPages(db: Db, config: Config, search: LogSearch, progress?: PagesProgress): AsyncGenerator<Buffer> {
  const limit = config.rpc.pageSize;
  let cursor: Cursor | undefined;
  // the window: from `start` (everything before it is read) to `end`
  let width = FIRST_WINDOW_NS;
  let start = search.from;
  let end = search.to - start >= width ? start + width - 1n : search.to;
  // with addresses, the logs of the last timestamp read wait for the next page (the order within a timestamp is the relay's)
  let held: LogRow[] = [];
  // the searched blocks' average length (a search holds one block at least)
  const apart = { blockNs: (search.to - search.from + 1n) / search.blocks };
  const ids = search.contractIds;
  let pages = 0;
  const gate = pageGateOf(db, config.rpc.pageReads);
  const since = performance.now();
  let reads = 0;
  for (;;) {
    const boxes = boxesAfter({ from: start, to: end }, cursor);
    // the first read at once (most answers are one page: they never wait behind longer walks); the later
    // ones in their turn (pageGate.ts); a page's text is made right after its read, before another read starts
    const leave = reads === 0 ? undefined : await gate.enter(pageTurn(since, reads));
    reads++;
    const began = performance.now();
    let rows: LogRow[] = [];
    try {
      if (boxes.length > 0) {
        rows = await findLogs(db, {
          // one contract as the listings' contractId: its address is read once, in the page's statement
          contractId: ids?.length === 1 ? ids[0]! : 0n,
          ...(ids !== undefined && ids.length > 1 ? { contractIds: ids } : {}),
          boxes,
          topics: search.topics,
          bloom: false,
          apart,
          order: 'asc',
          limit,
          closeIntervalNs: config.query.maxRecordFileCloseIntervalNs,
        });
      }
    } finally {
      // the next read is let in by a promise: it starts after this page's text, made synchronously below
      leave?.();
    }
    width = nextWidth(width, performance.now() - began, config.db.pool.statementTimeout);
    const last = rows[rows.length - 1];
    if (last !== undefined) cursor = { timestamp: BigInt(last.consensus_timestamp), index: last.index };
    // a short page: the window is read to its end, and every log of its last timestamp with it
    const windowDone = rows.length < limit;
    const done = windowDone && end >= search.to;
    if (search.addressOrder === undefined) {
      if (rows.length > 0) yield json(rows, progress, pages++ > 0);
    } else {
      const all = [...held, ...rows];
      const cut = windowDone ? all.length : all.findIndex((row) => row.consensus_timestamp === last!.consensus_timestamp);
      held = all.slice(cut);
      const ready = all.slice(0, cut);
      const groups: LogRow[] = [];
      for (let i = 0; i < ready.length; ) {
        let j = i;
        while (j < ready.length && ready[j]!.consensus_timestamp === ready[i]!.consensus_timestamp) j++;
        groups.push(...relayGroupOrder(ready.slice(i, j), search.addressOrder));
        i = j;
      }
      // the blocks of a page are found per page: a held timestamp keeps its record file columns
      if (groups.length > 0) yield json(groups, progress, pages++ > 0);
    }
    if (done) return;
    if (windowDone) {
      start = end + 1n;
      cursor = undefined;
    }
    // the window ends `width` after where the next statement starts
    const from = cursor?.timestamp ?? start;
    end = search.to - from >= width ? from + width - 1n : search.to;
  }
}
