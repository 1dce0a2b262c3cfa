/**
 * The statements of the contract family: one contract (GET /api/v1/contracts/{id}, as of a time too)
 * and the listing (GET /api/v1/contracts). Nothing here knows about HTTP.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/db.ts';
import { factStore } from '../../db/facts.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { INT64, type Operator, type Range, rangeSql } from '../../db/range.ts';
import { and, direction, type Order, type Sql, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';
import { hintKey, lookUpHinted } from '../common/addressHints.ts';

/** A row of entity (or entity_history) joined with contract. */
export interface ContractRow {
  auto_renew_account_id: string | null;
  auto_renew_period: string | null;
  created_timestamp: string | null;
  deleted: boolean | null;
  evm_address: HexBytes | null;
  expiration_timestamp: string | null;
  id: string;
  key: HexBytes | null;
  max_automatic_token_associations: number | null;
  memo: string;
  ethereum_nonce: string | null;
  obtainer_id: string | null;
  permanent_removal: boolean | null;
  proxy_account_id: string | null;
  timestamp_from: string | null;
  timestamp_to: string | null;
  file_id: string | null;
  runtime_bytecode: HexBytes | null;
  /** True when the bytecode comes from the contract's file (file_bytecode), else from initcode. */
  bytecode_from_file: boolean | null;
  file_bytecode: HexBytes | null;
  initcode: HexBytes | null;
}

/** The entity and contract columns the listing reads (a contract without its bytecode). */
export type ContractSummaryRow = Omit<ContractRow, 'runtime_bytecode' | 'bytecode_from_file' | 'file_bytecode' | 'initcode'>;

/** A contract by id, or by EVM address with the shard/realm prefixes as typed. */
export type ContractKey =
  | { kind: 'id'; id: bigint }
  | { kind: 'evm'; shard: string | null; realm: string | null; hex: string };


/** Columns of entity or entity_history (alias e). */
const ENTITY_COLUMNS = sql`e.auto_renew_account_id, e.auto_renew_period, e.created_timestamp, e.deleted, e.evm_address,
  e.expiration_timestamp, e.id, e.key, e.max_automatic_token_associations, e.memo, e.ethereum_nonce,
  e.obtainer_id, e.permanent_removal, e.proxy_account_id, e.timestamp_range,
  lower(e.timestamp_range) as timestamp_from, upper(e.timestamp_range) as timestamp_to`;

/**
 * Columns of contract (alias c) for the entity version `v`: the runtime bytecode, and the bytecode at
 * deployment. For a contract created from a bytecode file (not a system file) that is the file's
 * content at the contract's creation (every file_data chunk from the last FileCreate or non-empty
 * FileUpdate up to the creation timestamp, in order; files up to 0.0.1000 are system files and never
 * hold bytecode); otherwise contract.initcode.
 */
function contractColumns(v: Sql): Sql {
  return sql`c.file_id, c.runtime_bytecode,
  c.file_id > 1000 as bytecode_from_file,
  case when c.file_id > 1000 then (${fileBytecode(sql`c.file_id`, sql`${v}.created_timestamp`)}) end as file_bytecode,
  case when c.file_id > 1000 then null else c.initcode end as initcode`;
}

/** The file's content at `created` (see contractColumns). */
function fileBytecode(file: Sql, created: Sql): Sql {
  return sql`select string_agg(f.file_data, ''::bytea order by f.consensus_timestamp)
    from file_data f
    where f.entity_id = ${file}
      and f.consensus_timestamp <= ${created}
      and f.consensus_timestamp >= (
        select g.consensus_timestamp from file_data g
        where g.entity_id = ${file} and g.consensus_timestamp <= ${created}
          and (g.transaction_type = 17 or (g.transaction_type = 19 and length(g.file_data) <> 0))
        order by g.consensus_timestamp desc
        limit 1)`;
}

/**
 * The Citus-safe form (src/db/layout.ts): the contract's columns without the file, whose content a
 * statement of its own reads by the file's id (file_data is distributed by entity_id, not co-located
 * with the contract's row), as the reference does.
 */
const CONTRACT_COLUMNS_ONLY = sql`c.file_id, c.runtime_bytecode,
  c.file_id > 1000 as bytecode_from_file, null::bytea as file_bytecode,
  case when c.file_id > 1000 then null else c.initcode end as initcode`;

/** File contents kept per database and process, by file and creation time: at most this many bytes of hex text. */
export const MAX_BYTECODE_CHARS = 32 * 1024 * 1024;

const bytecodesOf = (db: Db): LRUCache<string, { bytecode: HexBytes | null }> =>
  factStore(db, 'fileBytecode', () => new LRUCache({ maxSize: MAX_BYTECODE_CHARS, sizeCalculation: (entry) => Math.max(1, entry.bytecode?.length ?? 0) }));

/**
 * The file's content at the contract's creation, read once per process: the chunks up to a past
 * creation time were all written before the contract was, and file_data rows never change.
 */
async function withFileBytecode(db: Db, rows: ContractRow[]): Promise<ContractRow[]> {
  const cache = bytecodesOf(db);
  for (const row of rows) {
    if (!row.bytecode_from_file || row.file_id === null) continue;
    const key = `${row.file_id}@${row.created_timestamp}`;
    let entry = row.created_timestamp === null ? undefined : cache.get(key);
    if (entry === undefined) {
      const [file] = await db.query<{ string_agg: HexBytes | null }>(
        sql`${fileBytecode(sql`${row.file_id}::bigint`, sql`${row.created_timestamp}::bigint`)}`,
      );
      entry = { bytecode: file?.string_agg ?? null };
      if (row.created_timestamp !== null) cache.set(key, entry);
    }
    row.file_bytecode = entry.bytecode;
  }
  return rows;
}

/** Conditions selecting the contract by id or by EVM address. */
function keyConditions(key: ContractKey): Sql[] {
  if (key.kind === 'id') return [sql`e.id = ${key.id.toString()}`];
  const conditions: Sql[] = [];
  if (key.shard !== null) conditions.push(sql`e.shard = ${key.shard}`);
  if (key.realm !== null) conditions.push(sql`e.realm = ${key.realm}`);
  conditions.push(sql`e.evm_address = ${Buffer.from(key.hex, 'hex')}`);
  return conditions;
}

/**
 * One condition on timestamp_range per filter, with the meaning of the reference's range overlap
 * (`timestamp_range && '(,T]'` etc.) written on the bounds, so that no range is built from T (which
 * overflows at the ends of bigint) and `lower(timestamp_range)` can use entity_history's index.
 * `eq` means "as of": the version started at or before T.
 */
function timestampCondition(operator: Operator, ns: bigint): Sql {
  const t = sql`${ns.toString()}::bigint`;
  switch (operator) {
    case 'eq':
    case 'lte':
      return sql`coalesce(lower(e.timestamp_range) <= ${t}, lower_inf(e.timestamp_range))`;
    case 'lt':
      return sql`coalesce(lower(e.timestamp_range) < ${t}, lower_inf(e.timestamp_range))`;
    case 'gte':
      return sql`coalesce(upper(e.timestamp_range) > ${t}, upper_inf(e.timestamp_range))`;
    case 'gt':
      return sql`coalesce(upper(e.timestamp_range) - 1 > ${t}, upper_inf(e.timestamp_range))`;
    case 'ne':
      return sql`not e.timestamp_range @> ${t}`;
  }
}

/**
 * The current contract (no timestamp filter), or the latest version in entity or entity_history
 * matching every timestamp filter. Current lookups return up to 2 rows so that a duplicated
 * create2 address can be told apart from a unique one.
 */
export async function findContract(
  db: Db,
  key: ContractKey,
  timestamps: ReadonlyArray<{ operator: Operator; value: bigint }>,
): Promise<ContractRow[]> {
  const where = [sql`e.type = 'CONTRACT'`, ...keyConditions(key)];
  if (citusSafe(dbLayout(db))) return withFileBytecode(db, await findContractRows(db, key, where, timestamps));
  if (timestamps.length === 0) {
    return db.query<ContractRow>(sql`select ${ENTITY_COLUMNS}, ${contractColumns(sql`e`)}
       from entity e left join contract c on e.id = c.id
       where ${and(where)}
       limit 2`);
  }
  const condition = and([...where, ...timestamps.map((t) => timestampCondition(t.operator, t.value))]);
  return db.query<ContractRow>(sql`select v.*, ${contractColumns(sql`v`)}
     from ((select ${ENTITY_COLUMNS} from entity e where ${condition})
           union all
           (select ${ENTITY_COLUMNS} from entity_history e where ${condition})
           order by timestamp_range desc
           limit 1) v
     left join contract c on c.id = v.id`);
}

/**
 * findContract's rows in the Citus-safe form: contract joined inside each branch on the entity's id
 * (co-located, and pruned by the same key), the file read afterwards.
 */
function findContractRows(
  db: Db,
  key: ContractKey,
  where: Sql[],
  timestamps: ReadonlyArray<{ operator: Operator; value: bigint }>,
): Promise<ContractRow[]> {
  if (timestamps.length === 0) {
    const read = (conditions: Sql[]) =>
      db.query<ContractRow>(sql`select ${ENTITY_COLUMNS}, ${CONTRACT_COLUMNS_ONLY}
       from entity e left join contract c on c.id = e.id
       where ${and(conditions)}
       limit 2`);
    return key.kind === 'evm' ? byAddress(db, key, where, read) : read(where);
  }
  const condition = and([...where, ...timestamps.map((t) => timestampCondition(t.operator, t.value))]);
  return db.query<ContractRow>(sql`(select ${ENTITY_COLUMNS}, ${CONTRACT_COLUMNS_ONLY}
       from entity e left join contract c on c.id = e.id where ${condition})
     union all
     (select ${ENTITY_COLUMNS}, ${CONTRACT_COLUMNS_ONLY}
       from entity_history e left join contract c on c.id = e.id where ${condition})
     order by timestamp_range desc
     limit 1`);
}

/**
 * The current contract with an EVM address (deleted or not; two rows: the address is not unique),
 * by the id the address named last time where that contract is not deleted (addressHints.ts), else
 * over every shard; a unique contract that is not deleted becomes the hint.
 */
function byAddress(db: Db, key: ContractKey & { kind: 'evm' }, where: Sql[], read: (conditions: Sql[]) => Promise<ContractRow[]>): Promise<ContractRow[]> {
  return lookUpHinted(db, hintKey('contract', key.shard, key.realm, key.hex), {
    byHint: async (id) => {
      const rows = await read([sql`e.id = ${id.toString()}`, ...where, sql`e.deleted is not true`]);
      return rows.length === 1 ? rows : undefined;
    },
    byAddress: () => read(where),
    hintOf: (rows) => (rows.length === 1 && rows[0]!.deleted !== true ? BigInt(rows[0]!.id) : undefined),
  });
}

export interface ContractsQuery {
  /** The entity ids allowed (every `contract.id` filter). */
  ids: Range<bigint>;
  order: Order;
  limit: number;
}

const COLUMNS = sql`e.auto_renew_account_id, e.auto_renew_period, e.created_timestamp, e.deleted,
      e.evm_address, e.expiration_timestamp, e.id, e.key, e.max_automatic_token_associations, e.memo, e.ethereum_nonce,
      e.obtainer_id, e.permanent_removal, e.proxy_account_id,
      lower(e.timestamp_range) as timestamp_from, upper(e.timestamp_range) as timestamp_to`;

/**
 * A page of current contract entities (deleted ones included) by id. The page's ids come first,
 * from an index-only scan of entity's (type, id) index; then each entity row and its contract's
 * file_id by primary key. Written as one join, the generic plan chose entity's primary key for the
 * unfiltered page (reading the 15 k accounts above the newest contract) and merge-joined the whole
 * contract table from its first id for a range (10 k rows for a page of 25).
 * On Citus (the v2 layout) the co-located join stays: a correlated subquery cannot run across
 * shards, and the plan there is the coordinator's.
 */
export function findContracts(db: Db, { ids, order, limit }: ContractsQuery): Promise<ContractSummaryRow[]> {
  const where = and([sql`e.type = 'CONTRACT'`, ...rangeSql(sql`e.id`, ids, 'bigint', INT64)]);
  if (citusSafe(dbLayout(db))) {
    return db.query<ContractSummaryRow>(sql`select ${COLUMNS}, c.file_id
      from entity e left join contract c on c.id = e.id
      where ${where}
      order by e.id ${direction(order)}
      limit ${limit}`);
  }
  // "limit 1" keeps the lateral subquery a probe per id: pulled up into a join, the generic plan
  // (which takes a parameter limit for a tenth of the contracts) hash-joined a scan of entity
  return db.query<ContractSummaryRow>(sql`select e.*
    from (select e.id from entity e where ${where} order by e.id ${direction(order)} limit ${limit}) page
    cross join lateral (
      select ${COLUMNS}, (select c.file_id from contract c where c.id = e.id) as file_id
      from entity e where e.id = page.id limit 1
    ) e
    order by e.id ${direction(order)}`);
}
