/** The statements of GET /api/v1/contracts/{id}/state. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import { BYTES, INT64, type Range, rangeSql } from '../../db/range.ts';
import { type Order, and, direction, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';

export interface StateRow {
  contract_id: string;
  slot: HexBytes;
  value: HexBytes | null;
  modified_timestamp: string;
  evm_address: HexBytes | null;
}

export interface StateQuery {
  contractId: bigint;
  slot: Range<Buffer>;
  order: Order;
  limit: number;
}

/** The current slots (contract_state), in slot order: a range scan of its primary key. */
export function findCurrentState(db: Db, q: StateQuery): Promise<StateRow[]> {
  const id = q.contractId.toString();
  return db.query<StateRow>(sql`select cs.contract_id, cs.slot, cs.value, cs.modified_timestamp,
      (select e.evm_address from entity e where e.id = ${id}) as evm_address
    from contract_state cs
    where ${and([sql`cs.contract_id = ${id}`, ...rangeSql(sql`cs.slot`, q.slot, 'bytea', BYTES)])}
    order by cs.slot ${direction(q.order)}
    limit ${q.limit}`);
}

/**
 * Each slot's latest change among those in the timestamp range (contract_state_change), in slot
 * order. The reference sorts every change of the contract (`distinct on (slot)`: 912 k rows for the
 * busiest bench contract); here the distinct slots are walked on the index (contract_id, slot,
 * consensus_timestamp), one probe each, and each slot's latest change in range is one backward
 * probe of the same index. The nested loop keeps the walk's order, so the limit stops the walk
 * after the page (an ORDER BY on top would make it walk every slot first).
 */
export function findHistoricalState(db: Db, q: StateQuery & { timestamp: Range<bigint> }): Promise<StateRow[]> {
  const id = q.contractId.toString();
  const dir = direction(q.order);
  const next = q.order === 'asc' ? sql`>` : sql`<`;
  const slots = (alias: string) => rangeSql(alias === 'c' ? sql`c.slot` : sql`w2.slot`, q.slot, 'bytea', BYTES);
  return db.query<StateRow>(sql`with recursive walk(slot) as (
    (select c.slot from contract_state_change c
     where ${and([sql`c.contract_id = ${id}`, ...slots('c')])}
     order by c.slot ${dir} limit 1)
    union all
    select (select w2.slot from contract_state_change w2
            where ${and([sql`w2.contract_id = ${id}`, sql`w2.slot ${next} w.slot`, ...slots('w2')])}
            order by w2.slot ${dir} limit 1)
    from walk w where w.slot is not null
  )
  select ch.contract_id, ch.slot, coalesce(ch.value_written, ch.value_read) as value,
    ch.consensus_timestamp as modified_timestamp,
    (select e.evm_address from entity e where e.id = ${id}) as evm_address
  from walk w
  cross join lateral (
    select c.contract_id, c.slot, c.value_written, c.value_read, c.consensus_timestamp
    from contract_state_change c
    where ${and([sql`c.contract_id = ${id}`, sql`c.slot = w.slot`, ...rangeSql(sql`c.consensus_timestamp`, q.timestamp, 'bigint', INT64)])}
    order by c.consensus_timestamp desc
    limit 1
  ) ch
  where w.slot is not null
  limit ${q.limit}`);
}
