/**
 * How far the network's history is final: the consensus end of the newest record file. The
 * importer writes a record file with all its transactions, results, logs and sidecars in one
 * database transaction and in consensus order, so nothing new can appear at or below that
 * timestamp. Read at most once per second (one statement on the primary key) and only while an
 * answer asks; an older value is merely conservative. A failing database makes no answer final.
 */
import type { Db } from '../../db/db.ts';
import { sql } from '../../db/sql.ts';

const REFRESH_MS = 1000;

export function settledThrough(db: Db, refreshMs = REFRESH_MS): () => Promise<bigint | undefined> {
  let value: bigint | undefined;
  let readAt = -Infinity;
  let reading: Promise<bigint | undefined> | undefined;
  return () => {
    if (Date.now() - readAt < refreshMs) return Promise.resolve(value);
    reading ??= db
      .query<{ consensus_end: string }>(sql`select consensus_end from record_file order by consensus_end desc limit 1`)
      .then(
        (rows) => {
          value = rows[0] === undefined ? undefined : BigInt(rows[0].consensus_end);
          readAt = Date.now();
          return value;
        },
        () => undefined,
      )
      .finally(() => (reading = undefined));
    return reading;
  };
}
