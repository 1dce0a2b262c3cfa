/** The statements of GET /api/v1/contracts/{id}/results/logs. Nothing here knows about HTTP. */
import { blockOfTimestampSql } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { INT32, INT64, isUnbounded, rangeSql } from '../../db/range.ts';
import { and, direction, join, or, type Order, planPerExecution, type Sql, sql } from '../../db/sql.ts';
import { type Box, TOPIC_KEYS, type TopicKey } from './params.ts';
import { withEvmAddresses } from '../common/evmAddresses.ts';
import { withBlocks, withBlocksInRange } from './blocks.ts';
import { perExecution } from './planChoice.ts';
import { type Part, type Split, newestFirst, within } from '../common/newestFirst.ts';
import type { LogRow } from './rows.ts';

export interface LogQuery {
  /** 0: every contract (or those of contractIds). */
  contractId: bigint;
  /**
   * Several contracts (the `address` filter of every contract's logs, an addition), each read by an
   * ordered scan of its own and merged; undefined: contractId alone says.
   */
  contractIds?: readonly bigint[];
  /** The union of these boxes is searched; at least one. */
  boxes: readonly Box[];
  /** Values of each topic filter (OR within a key, AND across keys). */
  topics: ReadonlyMap<TopicKey, readonly Buffer[]>;
  /** false: each row's bloom is null, not read (the JSON-RPC log has none); default true. */
  bloom?: boolean;
  order: Order;
  limit: number;
  /** query.maxRecordFileCloseInterval: how far after the page's last log its record file may end. */
  closeIntervalNs: bigint;
  /** Where a newest-first page is read in two steps (newestFirst.ts, splitAt); undefined: in one. */
  split?: Split | undefined;
  /**
   * Where the page's addresses and record files are read. Without it: in the page's own statement, a
   * probe per row, one round trip (the listings' pages of up to 100 logs; on Citus in statements of
   * their own, probed per timestamp: withBlocks). With it: in statements of their own, sent together
   * after the page, for pages of hundreds of logs from a few blocks (eth_getLogs), where a probe per
   * row costs the database more than the page itself. `blockNs`, the searched blocks' average length
   * in nanoseconds, tells withBlocksInRange whether to read the record files as one range.
   */
  apart?: { blockNs: bigint };
}

const COLUMNS = sql`cl.bloom, cl.contract_id, cl.consensus_timestamp, cl.data, cl.index, cl.root_contract_id,
    cl.topic0, cl.topic1, cl.topic2, cl.topic3, cl.transaction_hash, cl.transaction_index`;
/** The same without the bloom (256 bytes a log, as 514 characters of text twice): for readers that show none. */
const COLUMNS_WITHOUT_BLOOM = sql`null::bytea as bloom, cl.contract_id, cl.consensus_timestamp, cl.data, cl.index, cl.root_contract_id,
    cl.topic0, cl.topic1, cl.topic2, cl.topic3, cl.transaction_hash, cl.transaction_index`;
const columnsOf = (query: Pick<LogQuery, 'bloom'>): Sql => (query.bloom === false ? COLUMNS_WITHOUT_BLOOM : COLUMNS);

const TOPIC_COLUMNS: Record<TopicKey, Sql> = { topic0: sql`cl.topic0`, topic1: sql`cl.topic1`, topic2: sql`cl.topic2`, topic3: sql`cl.topic3` };

/** Conditions of one box: `=` when both bounds of a column are equal, else `>=` / `<=`. */
const boxConditions = (box: Box): Sql[] => [
  ...rangeSql(sql`cl.consensus_timestamp`, box.timestamp, 'bigint', INT64),
  ...rangeSql(sql`cl.index`, box.index, 'int', INT32),
];

/** The lowest lower and highest upper timestamp of the boxes, when every box has that bound. */
function hull(boxes: readonly Box[]): { from?: bigint; to?: bigint } {
  const froms = boxes.map((b) => b.timestamp.lower?.value);
  const tos = boxes.map((b) => b.timestamp.upper?.value);
  return {
    from: froms.every((v) => v !== undefined) ? froms.reduce((m, v) => (v! < m! ? v : m)) : undefined,
    to: tos.every((v) => v !== undefined) ? tos.reduce((m, v) => (v! > m! ? v : m)) : undefined,
  };
}

/**
 * The conditions every box shares: the contract (none for id 0, the network-wide listing; the listed
 * ones, unless each is scanned on its own: `perContract`) and the topics.
 */
function commonConditions(query: Pick<LogQuery, 'contractId' | 'contractIds' | 'topics'>, perContract = false): Sql[] {
  const where: Sql[] = [];
  if (query.contractId !== 0n) where.push(sql`cl.contract_id = ${query.contractId.toString()}`);
  const ids = query.contractIds;
  if (ids !== undefined && !perContract) {
    where.push(ids.length === 1 ? sql`cl.contract_id = ${ids[0]!.toString()}` : sql`cl.contract_id = any(${ids.map(String)}::bigint[])`);
  }
  for (const key of TOPIC_KEYS) {
    const values = query.topics.get(key);
    // one value stays a plain comparison, so that an index on (topicN, consensus_timestamp) delivers rows in order
    if (values?.length === 1) where.push(sql`${TOPIC_COLUMNS[key]} = ${values[0]}`);
    else if (values !== undefined && values.length > 1) where.push(sql`${TOPIC_COLUMNS[key]} = any(${values}::bytea[])`);
  }
  return where;
}

/** True when every box holds one timestamp (the `= any(...)` probes of logConditions). */
const allSingle = (boxes: readonly Box[]): boolean =>
  boxes.every((b) => b.timestamp.lower !== undefined && b.timestamp.lower.value === b.timestamp.upper?.value);

/**
 * The first `limit` matching rows in timestamp order (`exact`: in (timestamp, index) order, the page
 * cut exactly; an index scan on (contract_id, consensus_timestamp desc, index) then sorts each
 * timestamp's few logs as it goes). Several boxes that are ranges (page 2 and later of a listing:
 * `timestamp=lte:T&index=lt:I` is "T with index < I, or before T") are read as one ordered, limited
 * scan per box, merged: their OR under one hull makes the generic plan a bitmap scan of the whole
 * hull sorted at the end (0.65 s for a 4-day topic search of the network listing at scale 30, against
 * 1 ms for one box), while each box alone is an ordered index scan that stops after `limit` matches.
 */
function pageSql(query: LogQuery, where: Sql, exact = false): Sql {
  const dir = direction(query.order);
  const order = (alias: Sql) => (exact ? sql`${alias}.consensus_timestamp ${dir}, ${alias}.index ${dir}` : sql`${alias}.consensus_timestamp ${dir}`);
  const ids = query.contractIds;
  // several contracts: one ordered scan of each contract's index, merged (`= any(...)` reads every log
  // of every contract in the range and sorts them; on Citus, which refuses a LIMIT in a lateral subquery
  // over shards, logsSql's own statement does that)
  const perContract = ids !== undefined && ids.length > 1;
  const scan = (conditions: Sql) =>
    perContract
      ? sql`(select x.* from unnest(${ids.map(String)}::bigint[]) as c(id)
    cross join lateral (
      select ${columnsOf(query)}
      from contract_log cl
      where cl.contract_id = c.id and ${conditions}
      order by ${order(sql`cl`)}
      limit ${query.limit}
    ) x
    order by ${order(sql`x`)}
    limit ${query.limit})`
      : sql`(select ${columnsOf(query)}
    from contract_log cl
    where ${conditions}
    order by ${order(sql`cl`)}
    limit ${query.limit})`;
  if (query.boxes.length < 2 || allSingle(query.boxes)) {
    if (perContract) return scan(logConditions(query, true));
    return sql`select ${columnsOf(query)}
  from contract_log cl
  where ${where}
  order by ${order(sql`cl`)}
  limit ${query.limit}`;
  }
  const common = commonConditions(query, perContract);
  const parts = query.boxes.map((box) => scan(and([...common, ...boxConditions(box)])));
  return sql`select * from (${join(parts, ' union all ')}) boxes
  order by ${order(sql`boxes`)}
  limit ${query.limit}`;
}

/**
 * The WHERE conditions: contract (none for id 0, the network-wide listing), topics and the union
 * of the boxes. Several boxes (the reference's lower/inner/upper parts) are OR-ed under the
 * timestamp hull of all of them, so that the index scan on (contract_id, consensus_timestamp) is
 * bounded; boxes that each hold a single timestamp become `consensus_timestamp = any(...)` probes
 * instead of a hull (their timestamps may be far apart).
 */
export function logConditions(query: Pick<LogQuery, 'contractId' | 'contractIds' | 'boxes' | 'topics'>, perContract = false): Sql {
  const where = commonConditions(query, perContract);
  const boxes = query.boxes;
  if (boxes.length === 1) {
    where.push(...boxConditions(boxes[0]!));
  } else if (boxes.length > 1) {
    const single = boxes.map((b) => b.timestamp.lower?.value === b.timestamp.upper?.value ? b.timestamp.lower?.value : undefined);
    if (single.every((v) => v !== undefined)) {
      where.push(sql`cl.consensus_timestamp = any(${single.map(String)}::bigint[])`);
    } else {
      const { from, to } = hull(boxes);
      if (from !== undefined) where.push(sql`cl.consensus_timestamp >= ${from.toString()}`);
      if (to !== undefined) where.push(sql`cl.consensus_timestamp <= ${to.toString()}`);
    }
    where.push(sql`(${or(boxes.map((b) => and(boxConditions(b))))})`);
  }
  return and(where);
}

const contractAddressOf = (query: Pick<LogQuery, 'contractId'>): Sql => sql`(select e.evm_address from entity e where e.id = ${query.contractId.toString()})`;

/**
 * The page alone: one ordered, limited statement on (timestamp, index), each row with its contract's
 * address for one contract (null for every contract: withEvmAddresses) and without record files
 * (withBlocks, withBlocksInRange).
 *
 * The Citus-safe form (`citus`): for every contract Citus pushes its order and limit down to every
 * shard (logsSql's page / edge / union became five steps there, two of them over every shard); for one
 * contract it routes it to the contract's shard, whose server plans contract_log's partitions once,
 * not twice (3.4 against 7.3 ms of CPU for a contract without logs over 88 partitions;
 * docs/scaling.md). On PostgreSQL it is pageSql's page cut on (timestamp, index): several contracts
 * and the boxes after a page are each read by an ordered scan of their own, merged (Citus refuses a
 * LIMIT in a lateral subquery over shards); under one OR the generic plan reads the whole hull and
 * sorts it.
 */
export function pageAloneSql(query: LogQuery, citus: boolean): Sql {
  const dir = direction(query.order);
  const address = query.contractId !== 0n ? contractAddressOf(query) : sql`null::bytea`;
  if (citus) {
    return sql`select ${columnsOf(query)}, ${address} as evm_address
from contract_log cl
where ${logConditions(query)}
order by cl.consensus_timestamp ${dir}, cl.index ${dir}
limit ${query.limit}`;
  }
  return sql`select p.*, ${address} as evm_address
from (${pageSql(query, logConditions(query), true)}) p
order by p.consensus_timestamp ${dir}, p.index ${dir}`;
}

/**
 * One page of logs in (consensus_timestamp, index) order, each row with the contract's evm_address
 * and its candidate record file, in one statement.
 *
 * `page` takes the first `limit` matching rows in timestamp order only, which the index
 * (contract_id, consensus_timestamp desc, index) delivers without sorting, so the scan stops after
 * `limit` matches whatever plan is chosen (a generic plan of the prepared statement included).
 * Every matching row beyond the page's edge timestamp is then known to be in the page; the rows at
 * the edge timestamp are read again in full, and the union is sorted on (timestamp, index): at
 * most `limit` rows plus one timestamp's logs.
 *
 * The record file of each log is the reference's candidate: the first file ending at or after the
 * log's timestamp and at most maxRecordFileCloseInterval after the page's latest log, one primary
 * key probe per row, at most `limit` (never a range over every record file between the page's first
 * and last log, which for a sparse contract spans months). Probing once per distinct timestamp
 * instead needs a join back to the rows, which a generic plan (expecting one row) makes a nested
 * loop over every pair: slower on dense pages. assignRecordFiles then attributes the candidates.
 * (eth_getLogs's pages of up to 1,000 logs read theirs apart: LogQuery.apart.)
 */
export function logsSql(query: LogQuery, citus = false): Sql {
  if (citus) return pageAloneSql(query, true);
  const where = logConditions(query);
  const dir = direction(query.order);
  const slack = sql`${query.closeIntervalNs.toString()}::bigint`;
  const edge = query.order === 'desc' ? sql`min` : sql`max`;
  const beyond = query.order === 'desc' ? sql`>` : sql`<`;
  const evmAddress = query.contractId !== 0n ? contractAddressOf(query) : sql`(select e.evm_address from entity e where e.id = l.contract_id)`;
  const logs = sql`with page as (
  ${pageSql(query, where)}
), edge as (
  select ${edge}(consensus_timestamp) as ts from page
), logs as (
  select * from page where consensus_timestamp ${beyond} (select ts from edge)
  union all
  select ${columnsOf(query)}
  from contract_log cl
  where ${where} and cl.consensus_timestamp = (select ts from edge)
  order by consensus_timestamp ${dir}, index ${dir}
  limit ${query.limit}
)`;
  return sql`${logs}, bound as (
  select least(max(consensus_timestamp), 9223372036854775807 - ${slack}) + ${slack} as block_end from logs
)
select l.*, ${evmAddress} as evm_address,
  rf.consensus_start as block_consensus_start, rf.consensus_end as block_consensus_end,
  rf.number as block_number, rf.hash as block_hash
from logs l
left join lateral (${blockOfTimestampSql(sql`l.consensus_timestamp`, sql`(select block_end from bound)`)}) rf on true
order by l.consensus_timestamp ${dir}, l.index ${dir}`;
}

/** The boxes narrowed to one part of the timestamps (newestFirst.ts); those left empty dropped. */
export function boxesIn(boxes: readonly Box[], part: Part): Box[] {
  return boxes.map((box) => ({ ...box, timestamp: within(box.timestamp, part) })).filter((box) => !box.timestamp.empty);
}

export async function findLogs(db: Db, query: LogQuery): Promise<LogRow[]> {
  const layout = dbLayout(db);
  const planned = (statement: Sql) => (perExecution(query, layout) ? planPerExecution(statement) : statement);
  const citus = citusSafe(layout);
  if (!citus && query.apart === undefined) return db.query<LogRow>(planned(logsSql(query)));
  // newest first on partitioned tables in two steps (newestFirst.ts)
  const read = (part: Part | undefined, limit: number) => {
    const boxes = part === undefined ? query.boxes : boxesIn(query.boxes, part);
    return boxes.length === 0 ? Promise.resolve([]) : db.query<LogRow>(planned(pageAloneSql({ ...query, boxes, limit }, citus)));
  };
  const rows = await newestFirst(query.split, query.order, query.limit, read, {
    db,
    key: query.contractIds === undefined ? `logs:${query.contractId}` : `logs:${query.contractIds.join(',')}`,
    open: query.topics.size === 0 && query.boxes.length === 1 && isUnbounded(query.boxes[0]!.timestamp) && isUnbounded(query.boxes[0]!.index),
    timestampOf: (row) => BigInt(row.consensus_timestamp),
  });
  // sent together: one round trip with db.pool.batchStatements
  await Promise.all([
    query.contractId === 0n ? withEvmAddresses(db, rows) : undefined,
    query.apart !== undefined ? withBlocksInRange(db, rows, query.closeIntervalNs, query.apart.blockNs) : withBlocks(db, rows, query.closeIntervalNs),
  ]);
  return rows;
}
