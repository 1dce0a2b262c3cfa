/** The statement of GET /api/v1/contracts. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import { INT64, type Range, rangeSql } from '../../db/range.ts';
import { type Direction, and, direction, sql } from '../../db/sql.ts';
import type { ContractSummaryRow } from '../contract/view.ts';

export interface ContractsQuery {
  /** The entity ids allowed (every `contract.id` filter). */
  ids: Range<bigint>;
  order: Direction;
  limit: number;
}

/** A page of current contract entities (deleted ones included) by id, through entity's (type, id) index. */
export function findContracts(db: Db, { ids, order, limit }: ContractsQuery): Promise<ContractSummaryRow[]> {
  return db.query<ContractSummaryRow>(sql`select e.auto_renew_account_id, e.auto_renew_period, e.created_timestamp, e.deleted,
      e.evm_address, e.expiration_timestamp, e.id, e.key, e.max_automatic_token_associations, e.memo, e.ethereum_nonce,
      e.obtainer_id, e.permanent_removal, e.proxy_account_id,
      lower(e.timestamp_range) as timestamp_from, upper(e.timestamp_range) as timestamp_to, c.file_id
    from entity e left join contract c on c.id = e.id
    where ${and([sql`e.type = 'CONTRACT'`, ...rangeSql(sql`e.id`, ids, 'bigint', INT64)])}
    order by e.id ${direction(order)}
    limit ${limit}`);
}
