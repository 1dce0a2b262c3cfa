/**
 * Which results of a contract are top-level (transaction_nonce = 0), for contracts that have few.
 *
 * No index of the importer's schema holds transaction_nonce, so a contract's default (top-level)
 * listing walks contract_result__id_timestamp and reads every result row of the contract until the
 * page is full. For a contract called mostly from other contracts (the HTS system contract 0.0.359:
 * 177k results, none top-level) that is every result it has, on every request: ~80k buffers.
 *
 * The importer writes a record file with all its results in one transaction and in consensus
 * order, so nothing new appears at or below the newest record file's consensus end (the same rule
 * the response cache uses, src/db/settled.ts). One walk therefore tells the complete set of
 * a contract's top-level timestamps up to that point; when the set is small it is kept here, and
 * the listing reads those rows by timestamp plus the results after the point (resultsSql).
 *
 * A walk is started (in the background, once per contract at a time) after a default listing came
 * back short, which is when the plain statement had to read the contract's whole range. A contract
 * with more than MAX_TIMESTAMPS top-level results (its walk stops after MAX_TIMESTAMPS + 1 rows),
 * or with fewer than MIN_RESULTS results in all (a plain walk is short; counted on the index alone,
 * at most MIN_RESULTS entries), is remembered as such and keeps the plain statement. Entries expire after TTL_MS, so a
 * database that was restored or rewritten under the service is read afresh within minutes.
 */
import type { Config } from '../../config/config.ts';
import { newestBlockSql } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { sql } from '../../db/sql.ts';

/** All top-level result timestamps of one contract at or below `through`. */
export interface TopLevelSet {
  through: bigint;
  timestamps: readonly bigint[];
}

export const MAX_TIMESTAMPS = 1000;
/** Below this many results the plain walk is short (a few ms at most) and the set is not kept. */
export const MIN_RESULTS = 5000;
export const TTL_MS = 5 * 60_000;
const MAX_CONTRACTS = 2000;

interface Entry {
  /** undefined: more than MAX_TIMESTAMPS, fewer than minResults results, or no record file to bound the walk. */
  set: TopLevelSet | undefined;
  at: number;
}

export class TopLevelMemo {
  private readonly entries = new Map<bigint, Entry>();
  private readonly walks = new Map<bigint, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    private readonly minResults = MIN_RESULTS,
  ) {}

  /** The contract's set, when it is known and small. */
  get(contractId: bigint): TopLevelSet | undefined {
    const entry = this.fresh(contractId);
    return entry?.set;
  }

  /** Starts a walk of the contract unless one is known or under way; resolves when it is done. */
  learn(contractId: bigint): Promise<void> {
    if (contractId === 0n || this.fresh(contractId) !== undefined) return Promise.resolve();
    let walk = this.walks.get(contractId);
    if (walk === undefined) {
      walk = this.walk(contractId)
        .then((set) => this.remember(contractId, set))
        // a failed walk leaves nothing behind: the plain statement stays correct
        .catch(() => undefined)
        .finally(() => this.walks.delete(contractId));
      this.walks.set(contractId, walk);
    }
    return walk;
  }

  private fresh(contractId: bigint): Entry | undefined {
    const entry = this.entries.get(contractId);
    if (entry === undefined) return undefined;
    if (this.now() - entry.at >= TTL_MS) {
      this.entries.delete(contractId);
      return undefined;
    }
    return entry;
  }

  private remember(contractId: bigint, set: TopLevelSet | undefined): void {
    this.entries.delete(contractId);
    if (this.entries.size >= MAX_CONTRACTS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(contractId, { set, at: this.now() });
  }

  /** One statement, so that the bound and the walk see the same snapshot. */
  private async walk(contractId: bigint): Promise<TopLevelSet | undefined> {
    const rows = await this.db.query<{ through: string | null; timestamps: string[]; results: number }>(
      sql`with settled as (${newestBlockSql})
select (select consensus_end from settled) as through,
  array(select consensus_timestamp from contract_result
    where contract_id = ${contractId.toString()} and transaction_nonce = 0
      and consensus_timestamp <= (select consensus_end from settled)
    order by consensus_timestamp desc
    limit ${MAX_TIMESTAMPS + 1})::text[] as timestamps,
  (select count(*)::int from (select 1 from contract_result
    where contract_id = ${contractId.toString()} and consensus_timestamp <= (select consensus_end from settled)
    limit ${this.minResults}) few) as results`,
    );
    const row = rows[0];
    if (row?.through == null || row.timestamps.length > MAX_TIMESTAMPS || row.results < this.minResults) return undefined;
    return { through: BigInt(row.through), timestamps: row.timestamps.map(BigInt) };
  }
}

const memos = new WeakMap<Db, WeakMap<Config, TopLevelMemo>>();

/** The memo of one app: its database and its configuration (a test app on a reloaded database gets its own). */
export function topLevelMemo(db: Db, config: Config): TopLevelMemo {
  let byConfig = memos.get(db);
  if (byConfig === undefined) memos.set(db, (byConfig = new WeakMap()));
  let memo = byConfig.get(config);
  if (memo === undefined) byConfig.set(config, (memo = new TopLevelMemo(db)));
  return memo;
}
