/**
 * Which entity an EVM address named last time, per database and process: a hint that turns the next
 * lookup of the address into a read by the entity's id. entity is distributed by id on Citus, so a
 * lookup by address reaches all 16 of its shards (3.5 ms of PostgreSQL CPU on the cluster of
 * docs/scaling.md), a read by id one shard (0.4 ms).
 *
 * A hint is only ever confirmed, never trusted: the read by id repeats every condition of the lookup
 * and adds that the entity is not deleted. Entities are never removed, and the network gives an EVM
 * address to one live entity at a time (a CREATE2 address is taken again only after its contract is
 * deleted); so while the hinted entity has the address and is not deleted, no other entity has taken
 * it, and the lookup by address would find that one entity too. When the read finds nothing, the
 * lookup by address runs as before and its answer replaces the hint.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/db.ts';
import { factStore } from '../../db/facts.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';

/** Addresses kept per database: an id and a key of about 60 characters each, a few MB in all. */
export const MAX_HINTS = 20_000;

/**
 * The hints of `db`, where a lookup by address costs a fan-out (Citus, the v2 layout); undefined
 * elsewhere (an indexed read on one server, no cheaper by id).
 */
export function addressHints(db: Db): LRUCache<string, bigint> | undefined {
  if (!citusSafe(dbLayout(db))) return undefined;
  return factStore(db, 'addressHints', () => new LRUCache<string, bigint>({ max: MAX_HINTS }));
}

/** The key of a lookup: what it matches on (`kind`), the shard and realm it names, the address. */
export const hintKey = (kind: string, shard: string | null, realm: string | null, hex: string): string =>
  `${kind}:${shard ?? '*'}:${realm ?? '*'}:${hex.toLowerCase()}`;

/** A lookup by address in its two forms, and what of its answer becomes the next hint. */
export interface HintedLookup<T> {
  /** The lookup by the hinted id: its answer, or undefined when the hint is not confirmed. */
  byHint(id: bigint): Promise<T | undefined>;
  /** The lookup by address. */
  byAddress(): Promise<T>;
  /** The id the answer confirms for next time, if any. */
  hintOf(answer: T): bigint | undefined;
}

/** The lookup `key` of `db`: by the hint where one is kept and confirmed, else by address, which leaves the next hint. */
export async function lookUpHinted<T>(db: Db, key: string, lookup: HintedLookup<T>): Promise<T> {
  const hints = addressHints(db);
  const hint = hints?.get(key);
  if (hint !== undefined) {
    const confirmed = await lookup.byHint(hint);
    if (confirmed !== undefined) return confirmed;
    hints!.delete(key);
  }
  const answer = await lookup.byAddress();
  const next = hints && lookup.hintOf(answer);
  if (next !== undefined) hints!.set(key, next);
  return answer;
}
