/**
 * The parts of a logs page that the Citus-safe form (src/db/layout.ts) reads in statements of their
 * own: the candidate record file of each log (record_file is a coordinator-local table in v2). The
 * contracts' addresses of every contract's logs come from withEvmAddresses (../shared/query.ts).
 */
import type { Db } from '../../db/db.ts';
import { sql } from '../../db/sql.ts';
import type { LogRow } from './query.ts';

const INT64_MAX = 9223372036854775807n;

/**
 * The candidate record file of each distinct timestamp of the page, as logsSql's single statement
 * finds it: the first file ending at or after the log and at most `closeIntervalNs` after the page's
 * latest log, one primary key probe per timestamp.
 */
export async function withBlocks(db: Db, rows: LogRow[], closeIntervalNs: bigint): Promise<LogRow[]> {
  for (const row of rows) row.block_consensus_start = row.block_consensus_end = row.block_index = row.block_hash = null;
  if (rows.length === 0) return rows;
  const timestamps = [...new Set(rows.map((r) => r.consensus_timestamp))];
  const latest = timestamps.reduce((m, t) => (BigInt(t) > m ? BigInt(t) : m), BigInt(timestamps[0]!));
  const blockEnd = (latest < INT64_MAX - closeIntervalNs ? latest : INT64_MAX - closeIntervalNs) + closeIntervalNs;
  const files = await db.query<{ ts: string; consensus_start: string; consensus_end: string; index: string; hash: string }>(
    sql`select t.ts::text as ts, r.consensus_start, r.consensus_end, r.index, r.hash
    from unnest(${timestamps}::bigint[]) as t(ts)
    cross join lateral (
      select consensus_start, consensus_end, index, hash from record_file
      where consensus_end >= t.ts and consensus_end <= ${blockEnd.toString()}
      order by consensus_end
      limit 1
    ) r`,
  );
  const byTimestamp = new Map(files.map((f) => [f.ts, f]));
  for (const row of rows) {
    const file = byTimestamp.get(row.consensus_timestamp);
    if (file === undefined) continue;
    row.block_consensus_start = file.consensus_start;
    row.block_consensus_end = file.consensus_end;
    row.block_index = file.index;
    row.block_hash = file.hash;
  }
  return rows;
}
