/** The statement of GET /api/v1/contracts/{id}. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import type { Operator } from '../../db/range.ts';
import { type Sql, and, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';

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
  case when c.file_id > 1000 then (
    select string_agg(f.file_data, ''::bytea order by f.consensus_timestamp)
    from file_data f
    where f.entity_id = c.file_id
      and f.consensus_timestamp <= ${v}.created_timestamp
      and f.consensus_timestamp >= (
        select g.consensus_timestamp from file_data g
        where g.entity_id = c.file_id and g.consensus_timestamp <= ${v}.created_timestamp
          and (g.transaction_type = 17 or (g.transaction_type = 19 and length(g.file_data) <> 0))
        order by g.consensus_timestamp desc
        limit 1)
  ) end as file_bytecode,
  case when c.file_id > 1000 then null else c.initcode end as initcode`;
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
