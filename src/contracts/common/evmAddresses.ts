/** Statements several routes share. Nothing here knows about HTTP. */
import type { Db } from '../../db/db.ts';
import { type Sql, and, sql } from '../../db/sql.ts';
import type { HexBytes } from '../../format/hex.ts';
import { hintKey, lookUpHinted } from './addressHints.ts';

/** An opaque EVM address with the conditions that go with it. */
export interface EvmAddressLookup {
  /** 40 hex digits, any case. */
  hex: string;
  /** Shard and realm to match, when given (typed prefixes, or the configured ones). */
  shard: string | null;
  realm: string | null;
  /** Only entities of type CONTRACT. */
  contractsOnly: boolean;
  /** Deleted entities too (eth_subscribe's check, as the mirror node's /contracts/{address}); default: live only. */
  deletedToo?: boolean;
}

/**
 * The ids of the live entities (`deleted <> true`, which excludes a NULL flag too; with `deletedToo`
 * every entity) with this EVM address, at most two: enough to tell a unique address from a shared one.
 */
export async function findEntityIdsByEvmAddress(db: Db, lookup: EvmAddressLookup): Promise<bigint[]> {
  const conditions: Sql[] = [sql`evm_address = ${Buffer.from(lookup.hex, 'hex')}`];
  if (lookup.deletedToo !== true) conditions.push(sql`deleted <> true`);
  if (lookup.contractsOnly) conditions.push(sql`type = 'CONTRACT'`);
  if (lookup.shard !== null) conditions.push(sql`shard = ${lookup.shard}`);
  if (lookup.realm !== null) conditions.push(sql`realm = ${lookup.realm}`);
  // an entity found last time, confirmed by its id with the same conditions (addressHints.ts)
  const kind = `${lookup.deletedToo === true ? 'any' : 'live'}${lookup.contractsOnly ? '-contract' : ''}`;
  return lookUpHinted(db, hintKey(kind, lookup.shard, lookup.realm, lookup.hex), {
    byHint: async (id) => {
      const confirmed = await db.query<{ id: string }>(sql`select id from entity where id = ${id.toString()} and ${and(conditions)}`);
      return confirmed.length === 1 ? [id] : undefined;
    },
    byAddress: async () => (await db.query<{ id: string }>(sql`select id from entity where ${and(conditions)} limit 2`)).map((row) => BigInt(row.id)),
    hintOf: (ids) => (ids.length === 1 ? ids[0] : undefined),
  });
}

/**
 * The contracts' addresses for a page of rows of every contract, by their ids, in a statement of
 * its own (the Citus-safe form of the per-row entity probe: entity is distributed by id).
 */
export async function withEvmAddresses<R extends { contract_id: string; evm_address: HexBytes | null }>(db: Db, rows: R[]): Promise<R[]> {
  if (rows.length === 0) return rows;
  const ids = [...new Set(rows.map((r) => r.contract_id))];
  const found = await db.query<{ id: string; evm_address: HexBytes | null }>(
    sql`select id, evm_address from entity where id = any(${ids}::bigint[])`,
  );
  const byId = new Map(found.map((e) => [e.id, e.evm_address]));
  for (const row of rows) row.evm_address = byId.get(row.contract_id) ?? null;
  return rows;
}
