/** The statements of GET /api/v1/contracts/{id}/results. Nothing here knows about HTTP. */
import { type ItemBlock, blockOfTimestampSql, blockSearchEnd, blocksOfTimestamps } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { INT64, type Range, isUnbounded, contains, emptyRange, rangeSql } from '../../db/range.ts';
import { and, direction, type Order, type Sql, sql } from '../../db/sql.ts';
import { withEvmAddresses } from '../common/evmAddresses.ts';
import { type Part, type Split, newestFirst, within } from '../common/newestFirst.ts';
import type { TopLevelSet } from './topLevel.ts';
import type { DetailedResultRow, EthereumRow } from '../common/detailedResult.ts';
import type { ResultRow } from '../common/result.ts';

export interface ResultsQuery {
  /** 0 means every contract (the reference adds no contract condition for id 0). */
  contractId: bigint;
  timestamp: Range<bigint>;
  sender: Range<bigint>;
  transactionIndexes: readonly number[];
  /** Child results (transaction_nonce > 0) included. */
  internal: boolean;
  order: Order;
  limit: number;
  /** The columns of the detailed result object (the network-wide listing), not the short item's. */
  detailed?: boolean;
  /**
   * Every top-level result of the contract at or below `through` (see topLevel.ts). With it, and
   * without `internal`, only those timestamps and the results after `through` are read.
   */
  topLevel?: TopLevelSet;
  /** Where a newest-first page is read in two steps (newestFirst.ts, splitAt); undefined: in one. */
  split?: Split | undefined;
}

const DETAILED_COLUMNS = sql`amount, bloom, call_result, consensus_timestamp, contract_id, created_contract_ids, error_message,
    failed_initcode, function_parameters, case when sender_id is null then function_result end as function_result,
    gas_consumed, gas_limit, gas_used, payer_account_id, sender_id, transaction_hash, transaction_index, transaction_result`;

const COLUMNS = sql`amount, bloom, call_result, consensus_timestamp, contract_id, created_contract_ids, error_message,
    function_parameters, case when sender_id is null then function_result end as function_result,
    gas_consumed, gas_limit, gas_used, sender_id, transaction_hash`;

/**
 * One page of results in consensus_timestamp order. The page is taken from contract_result alone,
 * so that `contract_id = $1 ... order by consensus_timestamp limit n` is an ordered scan of
 * contract_result__id_timestamp (or __id_sender_timestamp with one sender, or the primary key when
 * every contract is listed) that stops after n matches; the entity is read for those n rows only.
 *
 * Several `from` values would make that an `= any(...)` scan whose output is not in timestamp order
 * (every row of every sender read and sorted: 43k rows for two senders of the busiest contract);
 * instead each sender gets its own ordered, limited scan (lateral over the distinct senders) and
 * the at most senders x n rows are merged.
 *
 * With `topLevel` (a contract with few top-level results among many, see topLevel.ts) and without
 * `internal`, the page is the union of the results after `topLevel.through` (the same ordered walk,
 * stopped at that bound) and the known timestamps (primary-key probes), each with every condition.
 */
export function resultsSql(query: ResultsQuery, citus = false): Sql {
  const dir = direction(query.order);
  const known = query.topLevel !== undefined && !query.internal && query.contractId !== 0n ? query.topLevel : undefined;
  // the known timestamps in the requested range, probed by key alone: with the range beside them, a
  // generic plan scans the range and filters on them (every child result of the HTS contract, 48k rows)
  const probes = known?.timestamps.filter((t) => contains(query.timestamp, t, INT64)) ?? [];
  const after = known && pageSql(query, [sql`consensus_timestamp > ${known.through.toString()}`], citus);
  const page = !known
    ? pageSql(query, [], citus)
    : probes.length === 0
      ? after!
      : sql`select * from (
    (${after!})
    union all
    (${pageSql({ ...query, timestamp: emptyRange<bigint>(), perSender: false }, [sql`consensus_timestamp = any(${probes.map(String)}::bigint[])`], citus)})
  ) known
  order by known.consensus_timestamp ${dir}
  limit ${query.limit}`;
  // Every contract on Citus: the addresses in a statement of their own (withEvmAddresses).
  if (citus && query.contractId === 0n) return page;
  // The contract's address by one primary-key probe per row of the page (for one contract, by its id:
  // one probe, which Citus routes with the page): a join lets a generic plan that expects many rows (a
  // network-wide timestamp range) hash-join a sequential scan of entity.
  const contract = query.contractId !== 0n ? sql`${query.contractId.toString()}` : sql`cr.contract_id`;
  return sql`select cr.*, (select e.evm_address from entity e where e.id = ${contract}) as evm_address
from (
  ${page}
) cr
order by cr.consensus_timestamp ${dir}`;
}

/**
 * The page from contract_result alone, with `extra` conditions. `perSender: false` writes several
 * `from` values as one `= any(...)` condition (for a bounded set of timestamps, where order comes
 * from a sort of few rows anyway).
 */
function pageSql(query: ResultsQuery & { perSender?: boolean }, extra: readonly Sql[], citus: boolean): Sql {
  const senders = query.sender.eq !== undefined ? [...new Set(query.sender.eq)] : [];
  // Citus refuses a LIMIT in a lateral subquery over shards (every contract): one scan for all senders there
  const perSender = senders.length > 1 && query.perSender !== false && !(citus && query.contractId === 0n);
  const where: Sql[] = [];
  if (query.contractId !== 0n) where.push(sql`contract_id = ${query.contractId.toString()}`);
  where.push(...rangeSql(sql`consensus_timestamp`, query.timestamp, 'bigint', INT64));
  where.push(...extra);
  const sender = perSender ? { ...query.sender, eq: undefined } : query.sender;
  if (perSender) where.push(sql`sender_id = s.id`);
  where.push(...rangeSql(sql`sender_id`, sender, 'bigint', INT64));
  const indexes = [...new Set(query.transactionIndexes)];
  if (indexes.length === 1) where.push(sql`transaction_index = ${indexes[0]}`);
  else if (indexes.length > 1) where.push(sql`transaction_index = any(${indexes}::int[])`);
  if (!query.internal) where.push(sql`transaction_nonce = 0`);
  const dir = direction(query.order);
  const columns = query.detailed ? DETAILED_COLUMNS : COLUMNS;
  return perSender
    ? sql`select x.* from unnest(${senders.map(String)}::bigint[]) as s(id)
    cross join lateral (
      select ${columns}
      from contract_result
      where ${and(where)}
      order by consensus_timestamp ${dir}
      limit ${query.limit}
    ) x
    order by x.consensus_timestamp ${dir}
    limit ${query.limit}`
    : sql`select ${columns}
    from contract_result
    where ${and(where)}
    order by consensus_timestamp ${dir}
    limit ${query.limit}`;
}

/** A page of results; newest first on partitioned tables in two steps (newestFirst.ts). */
export async function findResults<R = ResultRow>(db: Db, query: ResultsQuery): Promise<R[]> {
  const citus = citusSafe(dbLayout(db));
  const read = (part: Part | undefined, limit: number) => {
    const timestamp = part === undefined ? query.timestamp : within(query.timestamp, part);
    return timestamp.empty ? Promise.resolve([]) : db.query<R>(resultsSql({ ...query, timestamp, limit }, citus));
  };
  const rows = await newestFirst(query.split, query.order, query.limit, read, {
    db,
    key: `results:${query.internal ? 'all' : 'top'}:${query.contractId}`,
    open: isUnbounded(query.timestamp) && isUnbounded(query.sender) && query.transactionIndexes.length === 0,
    timestampOf: (row) => BigInt((row as { consensus_timestamp: string }).consensus_timestamp),
  });
  return citus && query.contractId === 0n ? withEvmAddresses(db, rows as Array<R & ResultRow>) : rows;
}

/** The statements of GET /api/v1/contracts/results. Nothing here knows about HTTP. */

/** The Ethereum transactions of a page of results (the columns the list reads), by primary key. */
export function findEthereumTransactions(db: Db, rows: readonly DetailedResultRow[]): Promise<EthereumRow[]> {
  const timestamps = rows.map((r) => r.consensus_timestamp);
  const payers = [...new Set(rows.map((r) => r.payer_account_id).filter((p): p is string => p !== null))];
  return db.query<EthereumRow>(sql`select access_list, chain_id, consensus_timestamp, gas_price, max_fee_per_gas,
      max_priority_fee_per_gas, nonce, signature_r, signature_s, signature_v, type, recovery_id, to_address, value
    from ethereum_transaction
    where consensus_timestamp = any(${timestamps}::bigint[]) and payer_account_id = any(${payers}::bigint[])`);
}

/** The Ethereum transactions and block candidates of a page of results. */
export interface PageExtras {
  eths: EthereumRow[];
  /** The block of each timestamp as the reference finds it (blockOfTimestampSql), to be kept where it contains it. */
  candidates: Array<ItemBlock & { ts: string }>;
}

type ExtrasRow = Omit<EthereumRow, 'consensus_timestamp'> & {
  ts: string;
  eth_ts: string | null;
  number: string | null;
  consensus_start: string | null;
  consensus_end: string | null;
  hash: string | null;
  gas_used: string | null;
};

/**
 * The Ethereum transactions of a page of results and the block of each of its timestamps (at most
 * `slackNs` after its latest), in one statement, one probe of each table per timestamp; on Citus
 * (the v2 layout) as two statements (findEthereumTransactions, blocksOfTimestamps), since record_file
 * is local to the coordinator and ethereum_transaction distributed.
 */
export async function findPageExtras(db: Db, rows: readonly DetailedResultRow[], slackNs: bigint): Promise<PageExtras> {
  const timestamps = rows.map((r) => r.consensus_timestamp);
  const searchEnd = blockSearchEnd(timestamps, slackNs);
  if (citusSafe(dbLayout(db))) {
    const [eths, candidates] = await Promise.all([findEthereumTransactions(db, rows), blocksOfTimestamps(db, timestamps, searchEnd)]);
    return { eths, candidates };
  }
  const payers = [...new Set(rows.map((r) => r.payer_account_id).filter((p): p is string => p !== null))];
  const found = await db.query<ExtrasRow>(sql`select t.ts::text as ts, e.consensus_timestamp as eth_ts, e.access_list, e.chain_id,
      e.gas_price, e.max_fee_per_gas, e.max_priority_fee_per_gas, e.nonce, e.signature_r, e.signature_s, e.signature_v,
      e.type, e.recovery_id, e.to_address, e.value, r.number, r.consensus_start, r.consensus_end, r.hash, r.gas_used
    from unnest(${timestamps}::bigint[]) as t(ts)
    left join ethereum_transaction e on e.consensus_timestamp = t.ts and e.payer_account_id = any(${payers}::bigint[])
    left join lateral (${blockOfTimestampSql(sql`t.ts`, searchEnd)}) r on true`);
  const eths: EthereumRow[] = [];
  const candidates: Array<ItemBlock & { ts: string }> = [];
  for (const row of found) {
    const { ts, eth_ts, number, consensus_start, consensus_end, hash, gas_used, ...eth } = row;
    if (eth_ts !== null) eths.push({ ...eth, consensus_timestamp: eth_ts });
    if (consensus_start !== null) candidates.push({ ts, number: number!, consensus_start, consensus_end: consensus_end!, hash: hash!, gas_used });
  }
  return { eths, candidates };
}
