/**
 * The live logs of one process: once per tick (live.tickMs) one statement reads the record files the
 * importer committed since the last tick and every log in them, and each log is matched in memory
 * against the subscribers' filters. The work per tick does not grow with the subscribers: one
 * statement, one match per log and distinct filter, and one write per subscriber. Subscribers with
 * the same filter (the same key) share one batch per tick: its logs are matched and encoded once,
 * and every one of them writes the same bytes, so a tick's events are held in memory once however
 * many clients wait for them. Only whole blocks are read: a log is delivered
 * once the record file that holds it is committed, and `through` (the newest record file's end
 * delivered) only moves with a whole tick. A failed tick is tried again at the next one.
 *
 * The feed runs while it has subscribers and stops with the last. Idle, it has no position of its
 * own: every position() reads the newest record file, so that a stream that starts later starts at
 * the newest block, never where the feed stopped.
 */
import { Gauge, Histogram, Registry } from 'prom-client';
import { type Block, type ItemBlock, blocksEndingAfter, blocksEndingAfterSql, newestBlock } from '../../../db/blocks.ts';
import type { Db } from '../../../db/db.ts';
import { citusSafe, dbLayout } from '../../../db/layout.ts';
import { sql } from '../../../db/sql.ts';
import { assignRecordFiles } from '../blocks.ts';
import type { LogRow } from '../rows.ts';
import { type LogView, logView } from '../view.ts';

/** Record files per tick at most: a feed that fell behind catches up a bounded step at a time. */
export const FILES_PER_TICK = 100;

/** One log as the subscribers see it: its position, its contract and topics (for matching), its item. */
export interface LiveLog {
  timestamp: bigint;
  index: number;
  contractId: string;
  /** topic0..3 as stored (hex, leading zero bytes trimmed), null where absent. */
  topics: Array<string | null>;
  view: LogView;
  /** The log's encoded event, once a subscriber has encoded it (shared by every batch that holds it). */
  encoded?: string;
}

/** One tick's logs that match one filter, in (consensus_timestamp, index) order, encoded at most once. */
export class LiveBatch {
  #chunk: Buffer | undefined;

  constructor(readonly logs: readonly LiveLog[]) {}

  /** Every log of the batch encoded (each log with `encode`, once per log), as one chunk for every subscriber. */
  chunk(encode: (log: LiveLog) => string): Buffer {
    this.#chunk ??= Buffer.from(this.logs.map(encode).join(''));
    return this.#chunk;
  }
}

/** Told of every tick's logs that match its filter, and of the new `through`. */
export interface FeedSubscriber {
  /** Equal keys, equal filters: the subscribers of one key get one batch per tick. */
  readonly filterKey: string;
  matches(log: LiveLog): boolean;
  deliver(batch: LiveBatch, through: bigint): void;
}

type TickRow = LogRow & { kind: 'f' | 'l' };

const COLUMNS = sql`cl.bloom, cl.contract_id, cl.consensus_timestamp, cl.data, cl.index, cl.root_contract_id,
  cl.topic0, cl.topic1, cl.topic2, cl.topic3, cl.transaction_hash, cl.transaction_index`;

/** The new record files after `through` and their logs, in one statement (files first, then logs in order). */
const tickSql = (through: bigint) => sql`with files as (
  ${blocksEndingAfterSql(through, FILES_PER_TICK)}
)
select * from (
  select 'f' as kind, null::bytea as bloom, null::bigint as contract_id, f.consensus_end as consensus_timestamp, null::bytea as data,
    null::int as index, null::bigint as root_contract_id, null::bytea as topic0, null::bytea as topic1, null::bytea as topic2,
    null::bytea as topic3, null::bytea as transaction_hash, null::int as transaction_index, null::bytea as evm_address,
    f.consensus_start as block_consensus_start, f.consensus_end as block_consensus_end, f.number as block_number, f.hash as block_hash
  from files f
  union all
  select 'l', ${COLUMNS}, (select e.evm_address from entity e where e.id = cl.contract_id),
    null, null, null, null
  from contract_log cl
  where cl.consensus_timestamp > ${through.toString()} and cl.consensus_timestamp <= (select max(consensus_end) from files)
) tick
order by kind, consensus_timestamp, index`;

/** The Citus-safe form: record_file (coordinator-local) and contract_log in statements of their own. */
async function tickCitus(db: Db, through: bigint): Promise<TickRow[]> {
  const files = await blocksEndingAfter(db, through, FILES_PER_TICK);
  if (files.length === 0) return [];
  const upto = files[files.length - 1]!.consensus_end;
  const logs = await db.query<LogRow>(sql`select ${COLUMNS}, null::bytea as evm_address from contract_log cl
    where cl.consensus_timestamp > ${through.toString()} and cl.consensus_timestamp <= ${upto}
    order by cl.consensus_timestamp, cl.index`);
  const ids = [...new Set(logs.map((l) => l.contract_id))];
  const addresses = ids.length === 0 ? [] : await db.query<{ id: string; evm_address: string | null }>(sql`select id, evm_address from entity where id = any(${ids}::bigint[])`);
  const byId = new Map(addresses.map((a) => [a.id, a.evm_address]));
  return [
    ...files.map((f) => ({ kind: 'f' as const, block_consensus_start: f.consensus_start, block_consensus_end: f.consensus_end, block_number: f.number, block_hash: f.hash }) as TickRow),
    ...logs.map((l) => ({ ...l, kind: 'l' as const, evm_address: byId.get(l.contract_id) ?? null })),
  ];
}

/** The feeds' metrics (every feed of the process), scraped with the others (Route.metrics). */
export const liveFeedRegistry = new Registry();

interface FeedMetrics {
  tick: Histogram;
  lag: Gauge;
}

const METRICS: FeedMetrics = {
  tick: new Histogram({
    name: 'live_tick_duration_seconds',
    help: 'Duration of a live-logs tick (its statement and the matching)',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [liveFeedRegistry],
  }),
  lag: new Gauge({ name: 'live_lag_seconds', help: "Time from the newest delivered record file's end to its delivery", registers: [liveFeedRegistry] }),
};

export class LogFeed {
  private readonly subscribers = new Set<FeedSubscriber>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** The consensus end of the newest record file delivered (running), or last read (idle). */
  through: bigint | undefined;
  /** The block number of `through`'s record file, where known. */
  throughBlock: bigint | undefined;
  private starting: Promise<bigint> | undefined;

  constructor(
    private readonly db: Db,
    private readonly tickMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly metrics: FeedMetrics = METRICS,
  ) {}

  /** The newest record file, read now (none on a database without one). */
  newest(): Promise<Block | undefined> {
    return newestBlock(this.db);
  }

  /**
   * The feed's position: running, the end of the newest record file it delivered; idle, the newest
   * record file's end, read now (one read for the calls that come while it runs).
   */
  position(): Promise<bigint> {
    if (this.timer !== undefined && this.through !== undefined) return Promise.resolve(this.through);
    this.starting ??= this.newest()
      .then((block) => {
        // a feed that started meanwhile keeps its own position
        if (this.timer === undefined || this.through === undefined) {
          this.through = block === undefined ? 0n : BigInt(block.consensus_end);
          this.throughBlock = block === undefined ? undefined : BigInt(block.number);
        }
        return this.through;
      })
      .finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Adds a subscriber that has every log through `through` already (call synchronously after reading position()). */
  attach(subscriber: FeedSubscriber): void {
    this.subscribers.add(subscriber);
    this.timer ??= setInterval(() => void this.tick(), this.tickMs).unref();
  }

  detach(subscriber: FeedSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** One tick (at most one at a time): what is new, delivered to every subscriber. */
  tick(): Promise<void> {
    this.ticking ??= this.#tick().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  async #tick(): Promise<void> {
    const started = performance.now();
    let through: bigint;
    try {
      through = await this.position();
    } catch (err) {
      this.onError(err);
      return;
    }
    let rows: TickRow[];
    try {
      rows = citusSafe(dbLayout(this.db)) ? await tickCitus(this.db, through) : await this.db.query<TickRow>(tickSql(through));
    } catch (err) {
      this.onError(err);
      return;
    }
    const files: ItemBlock[] = [];
    const logs: LogRow[] = [];
    for (const row of rows) {
      if (row.kind === 'f') files.push({ consensus_start: row.block_consensus_start!, consensus_end: row.block_consensus_end!, number: row.block_number!, hash: row.block_hash!, gas_used: null });
      else logs.push(row);
    }
    // the last subscriber left during the read: the feed is idle, and has no position of its own
    if (files.length === 0 || this.subscribers.size === 0) return;
    const newestFile = files[files.length - 1]!;
    const newest = BigInt(newestFile.consensus_end);
    const blocks = assignRecordFiles([...new Set(logs.map((l) => l.consensus_timestamp))], files);
    const live: LiveLog[] = logs.map((row) => ({
      timestamp: BigInt(row.consensus_timestamp),
      index: row.index,
      contractId: row.contract_id,
      topics: [row.topic0, row.topic1, row.topic2, row.topic3],
      view: logView(row, blocks.get(row.consensus_timestamp)),
    }));
    // one batch per distinct filter; a subscriber that fails must not keep the others from their logs
    const batches = new Map<string, LiveBatch>();
    for (const subscriber of [...this.subscribers]) {
      let batch = batches.get(subscriber.filterKey);
      if (batch === undefined) {
        batch = new LiveBatch(live.filter((log) => subscriber.matches(log)));
        batches.set(subscriber.filterKey, batch);
      }
      try {
        subscriber.deliver(batch, newest);
      } catch (err) {
        this.onError(err);
      }
    }
    this.through = newest;
    this.throughBlock = BigInt(newestFile.number);
    this.metrics.tick.observe((performance.now() - started) / 1000);
    this.metrics.lag.set(Math.max(0, Date.now() / 1000 - Number(newest / 1_000_000n) / 1000));
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.subscribers.clear();
  }
}
