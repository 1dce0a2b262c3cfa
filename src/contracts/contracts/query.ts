/** The statement of GET /api/v1/contracts. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { INT64, type Range, rangeSql } from '../../db/range.ts';
import { type Order, and, direction, sql } from '../../db/sql.ts';
import type { ContractSummaryRow } from '../contract/view.ts';

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
