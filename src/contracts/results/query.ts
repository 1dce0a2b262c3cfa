import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { badRequest, invalidParameter, notFound } from '../../http/errors.ts';
import type { BlockFilter, Range } from './params.ts';
import type { HexBytes } from '../../format/hex.ts';

/** A contract_result row with the contract's entity.evm_address (NULL when there is no entity). */
export interface ResultRow {
  amount: string | null;
  bloom: HexBytes | null;
  call_result: HexBytes | null;
  consensus_timestamp: string;
  contract_id: string;
  created_contract_ids: Array<string | null> | null;
  error_message: string | null;
  function_parameters: HexBytes | null;
  /** Only selected when sender_id is NULL (the `from` fallback needs it); NULL otherwise. */
  function_result: HexBytes | null;
  gas_consumed: string | null;
  gas_limit: string;
  gas_used: string | null;
  sender_id: string | null;
  transaction_hash: HexBytes | null;
  evm_address: HexBytes | null;
}

export interface ResultsQuery {
  /** 0 means every contract (the reference adds no contract condition for id 0). */
  contractId: bigint;
  timestamp: Range;
  sender: Range;
  transactionIndexes?: readonly number[];
  /** Child results (transaction_nonce > 0) included. */
  internal: boolean;
  order: 'asc' | 'desc';
  limit: number;
}

/**
 * Conditions for one Range on a bigint column; a single `eq` value stays a plain `=` so that ordered
 * index scans apply. `eqColumn` replaces the column in the `eq` condition (the lateral form below).
 */
function rangeConditions(column: string, range: Range, params: unknown[], eqColumn?: string): string[] {
  const out: string[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  if (eqColumn !== undefined) out.push(`${column} = ${eqColumn}`);
  else if (range.eq !== undefined) {
    const values = [...new Set(range.eq)];
    out.push(values.length === 1 ? `${column} = ${p(values[0]!.toString())}` : `${column} = any(${p(values.map(String))}::bigint[])`);
  }
  if (range.lower !== undefined) out.push(`${column} >= ${p(range.lower.toString())}`);
  if (range.upper !== undefined) out.push(`${column} <= ${p(range.upper.toString())}`);
  if (range.ne.length > 0) out.push(`${column} <> all(${p([...new Set(range.ne)].map(String))}::bigint[])`);
  return out;
}

const COLUMNS = `amount, bloom, call_result, consensus_timestamp, contract_id, created_contract_ids, error_message,
    function_parameters, case when sender_id is null then function_result end as function_result,
    gas_consumed, gas_limit, gas_used, sender_id, transaction_hash`;

/**
 * One page of results in consensus_timestamp order. The page is taken from contract_result alone,
 * so that `contract_id = $1 ... order by consensus_timestamp limit n` is an ordered scan of
 * contract_result__id_timestamp (or __id_sender_timestamp with one sender, or the primary key when
 * every contract is listed) that stops after n matches; the entity is joined to those n rows only.
 *
 * Several `from` values would make that an `= any(...)` scan whose output is not in timestamp order
 * (every row of every sender read and sorted: 43k rows for two senders of the busiest contract);
 * instead each sender gets its own ordered, limited scan (lateral over the distinct senders) and
 * the at most senders x n rows are merged.
 */
export function resultsSql(query: ResultsQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where: string[] = [];
  const senders = query.sender.eq !== undefined ? [...new Set(query.sender.eq)] : [];
  const perSender = senders.length > 1;
  if (query.contractId !== 0n) where.push(`contract_id = $${values.push(query.contractId.toString())}`);
  where.push(...rangeConditions('consensus_timestamp', query.timestamp, values));
  where.push(...rangeConditions('sender_id', query.sender, values, perSender ? 's.id' : undefined));
  const indexes = query.transactionIndexes;
  if (indexes !== undefined && indexes.length > 0) {
    const distinct = [...new Set(indexes)];
    where.push(
      distinct.length === 1
        ? `transaction_index = $${values.push(distinct[0]!)}`
        : `transaction_index = any($${values.push(distinct)}::int[])`,
    );
  }
  if (!query.internal) where.push('transaction_nonce = 0');
  const dir = query.order;
  const limit = `$${values.push(query.limit)}`;
  const filter = where.length > 0 ? `\n  where ${where.join(' and ')}` : '';
  const page = perSender
    ? `select x.* from unnest($${values.push(senders.map(String))}::bigint[]) as s(id)
  cross join lateral (
    select ${COLUMNS}
    from contract_result${filter.replaceAll('\n', '\n  ')}
    order by consensus_timestamp ${dir}
    limit ${limit}
  ) x
  order by x.consensus_timestamp ${dir}
  limit ${limit}`
    : `select ${COLUMNS}
  from contract_result${filter}
  order by consensus_timestamp ${dir}
  limit ${limit}`;
  const text = `select cr.*, e.evm_address
from (
  ${page}
) cr
left join entity e on e.id = cr.contract_id
order by cr.consensus_timestamp ${dir}`;
  return { text, values };
}

export async function findResults(db: Db, query: ResultsQuery): Promise<ResultRow[]> {
  const { text, values } = resultsSql(query);
  return db.query<ResultRow>(text, values);
}

/** The consensus range of a record file (block). */
export interface BlockRange {
  consensus_start: string;
  consensus_end: string;
}

/**
 * The record file a block filter names, or undefined. A hash is a case-sensitive prefix match
 * (stored hashes are lower-case hex): written as the range [prefix, prefix with its last character
 * incremented) under the "C" collation, which selects exactly the strings starting with the prefix
 * and is answered by the record_file__hash index (hash collate "C") with any plan, generic or not.
 */
export async function findBlock(db: Db, filter: BlockFilter): Promise<BlockRange | undefined> {
  if (filter.kind === 'number') {
    const rows = await db.query<BlockRange>(
      'select consensus_start, consensus_end from record_file where index = $1 limit 1',
      [filter.value],
    );
    return rows[0];
  }
  const prefix = filter.prefix;
  const after = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const rows = await db.query<BlockRange>(
    `select consensus_start, consensus_end from record_file
     where hash collate "C" >= $1 and hash collate "C" < $2 and hash like $1 || '%'
     limit 1`,
    [prefix, after],
  );
  return rows[0];
}

/**
 * The id of the entity (any type) with this opaque EVM address in the configured shard and realm,
 * excluding deleted ones and those with a NULL deleted flag (`deleted <> true`). None: 404.
 */
export async function findSenderId(db: Db, hex: string, config: Config): Promise<bigint> {
  const rows = await db.query<{ id: string }>(
    `select id from entity
     where evm_address = $1 and deleted <> true and shard = $2 and realm = $3
     limit 2`,
    [Buffer.from(hex, 'hex'), config.common.shard.toString(), config.common.realm.toString()],
  );
  if (rows.length === 0) throw notFound();
  // The reference answers 500 here; two live entities sharing an address is not something a client can fix.
  if (rows.length > 1) throw badRequest(`${invalidParameter('from')} - more than one entity has the evm address 0x${hex}`);
  return BigInt(rows[0]!.id);
}
