import type { Db } from '../../db/db.ts';
import type { Filter } from '../../http/filters.ts';
import type { EvmAddressRef } from '../../http/contractParam.ts';
import { timestampToNs } from '../../format/timestamp.ts';
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
  initcode: HexBytes | null;
  runtime_bytecode: HexBytes | null;
}

export type ContractKey = { kind: 'id'; id: bigint } | EvmAddressRef;

const COLUMNS = `e.auto_renew_account_id, e.auto_renew_period, e.created_timestamp, e.deleted, e.evm_address,
  e.expiration_timestamp, e.id, e.key, e.max_automatic_token_associations, e.memo, e.ethereum_nonce,
  e.obtainer_id, e.permanent_removal, e.proxy_account_id, e.timestamp_range,
  lower(e.timestamp_range) as timestamp_from, upper(e.timestamp_range) as timestamp_to,
  c.file_id, c.initcode, c.runtime_bytecode`;

/** SQL conditions (and their parameters) selecting the contract by id or by EVM address. */
function keyConditions(key: ContractKey, params: unknown[]): string[] {
  if (key.kind === 'id') {
    params.push(key.id.toString());
    return [`e.id = $${params.length}`];
  }
  const conditions: string[] = [];
  if (key.shard !== null) {
    params.push(key.shard);
    conditions.push(`e.shard = $${params.length}`);
  }
  if (key.realm !== null) {
    params.push(key.realm);
    conditions.push(`e.realm = $${params.length}`);
  }
  params.push(Buffer.from(key.hex, 'hex'));
  conditions.push(`e.evm_address = $${params.length}`);
  return conditions;
}

/**
 * One condition on timestamp_range per filter, with the meaning of the reference's range overlap
 * (`timestamp_range && '(,T]'` etc.) written on the bounds, so that no range is built from T (which
 * overflows at the ends of bigint) and `lower(timestamp_range)` can use entity_history's index.
 * `eq` means "as of": the version started at or before T.
 */
function timestampCondition(filter: Filter, params: unknown[]): string {
  params.push(timestampToNs(filter.value));
  const p = `$${params.length}::bigint`;
  const r = 'e.timestamp_range';
  switch (filter.operator) {
    case 'eq':
    case 'lte':
      return `coalesce(lower(${r}) <= ${p}, lower_inf(${r}))`;
    case 'lt':
      return `coalesce(lower(${r}) < ${p}, lower_inf(${r}))`;
    case 'gte':
      return `coalesce(upper(${r}) > ${p}, upper_inf(${r}))`;
    case 'gt':
      return `coalesce(upper(${r}) - 1 > ${p}, upper_inf(${r}))`;
    case 'ne':
      return `not ${r} @> ${p}`;
  }
}

/**
 * The current contract (no timestamp filter), or the latest version in entity or entity_history
 * matching every timestamp filter. Current lookups return up to 2 rows so that a duplicated
 * create2 address can be told apart from a unique one.
 */
export async function findContract(db: Db, key: ContractKey, timestamps: readonly Filter[]): Promise<ContractRow[]> {
  const params: unknown[] = [];
  const where = ["e.type = 'CONTRACT'", ...keyConditions(key, params)];
  if (timestamps.length === 0) {
    return db.query<ContractRow>(
      `select ${COLUMNS} from entity e left join contract c on e.id = c.id where ${where.join(' and ')} limit 2`,
      params,
    );
  }
  for (const filter of timestamps) where.push(timestampCondition(filter, params));
  const condition = where.join(' and ');
  return db.query<ContractRow>(
    `(select ${COLUMNS} from entity e left join contract c on e.id = c.id where ${condition})
     union
     (select ${COLUMNS} from entity_history e left join contract c on e.id = c.id where ${condition})
     order by timestamp_range desc
     limit 1`,
    params,
  );
}

/**
 * The bytecode file's content at the contract's creation: every file_data chunk from the last
 * FileCreate or non-empty FileUpdate up to the creation timestamp, in order.
 */
export async function fileBytecode(db: Db, fileId: string, createdTimestamp: string): Promise<HexBytes | null> {
  const rows = await db.query<{ data: HexBytes | null }>(
    `select string_agg(file_data, ''::bytea order by consensus_timestamp) as data
     from file_data
     where entity_id = $1
       and consensus_timestamp <= $2
       and consensus_timestamp >= (
         select consensus_timestamp from file_data
         where entity_id = $1 and consensus_timestamp <= $2
           and (transaction_type = 17 or (transaction_type = 19 and length(file_data) <> 0))
         order by consensus_timestamp desc
         limit 1)`,
    [fileId, createdTimestamp],
  );
  return rows[0]?.data ?? null;
}
