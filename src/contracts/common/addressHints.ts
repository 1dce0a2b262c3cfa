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
 *
 * An address no live entity had is kept too, with the newest record file read on the same server
 * before that lookup: the importer writes every entity in the transaction of its record file, so
 * while a fresh read of the newest record file there (one statement on the coordinator, a sixth of
 * the fan-out's cost) still finds that file, nothing can have taken the address since. Otherwise
 * the lookup by address runs again. Kept only where the lookup's server is known: without read
 * replicas, or under the pin of an answer (src/db/pin.ts).
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/db.ts';
import { factStore } from '../../db/facts.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { activePin } from '../../db/pin.ts';
import { readSettled, settledEnd, settledHere } from '../../db/settled.ts';

/** Addresses kept per database: an id and a key of about 60 characters each, a few MB in all. */
export const MAX_HINTS = 20_000;

/**
 * The hints of `db`, where a lookup by address costs a fan-out (Citus, the v2 layout); undefined
 * elsewhere (an indexed read on one server, no cheaper by id).
 */
export function addressHints(db: Db): LRUCache<string, Hint> | undefined {
  if (!citusSafe(dbLayout(db))) return undefined;
  return factStore(db, 'addressHints', () => new LRUCache<string, Hint>({ max: MAX_HINTS }));
}

/** What a lookup found last time: the live entity's id, or none while `server`'s newest record file ended at `through`. */
export type Hint = { id: bigint } | { absentThrough: bigint; server: string };

/** The server the lookup's statements go to, where it is known: its pin's, or the one server without replicas. */
function serverOf(db: Db): string | undefined {
  const pin = activePin();
  if (pin !== undefined) return pin.failedOver ? undefined : pin.server;
  return db.pin === undefined ? '' : undefined;
}

/** The key of a lookup: what it matches on (`kind`), the shard and realm it names, the address. */
export const hintKey = (kind: string, shard: string | null, realm: string | null, hex: string): string =>
  `${kind}:${shard ?? '*'}:${realm ?? '*'}:${hex.toLowerCase()}`;

/** A lookup by address in its two forms (an empty answer: no live entity), and what of its answer becomes the next hint. */
export interface HintedLookup<T extends readonly unknown[]> {
  /** The lookup by the hinted id: its answer, or undefined when the hint is not confirmed. */
  byHint(id: bigint): Promise<T | undefined>;
  /** The lookup by address. */
  byAddress(): Promise<T>;
  /** The id the answer confirms for next time, if any. */
  hintOf(answer: T): bigint | undefined;
}

/** The lookup `key` of `db`: by the hint where one is kept and confirmed, else by address, which leaves the next hint. */
export async function lookUpHinted<T extends readonly unknown[]>(db: Db, key: string, lookup: HintedLookup<T>): Promise<T> {
  const hints = addressHints(db);
  const hint = hints?.get(key);
  const server = hints && serverOf(db);
  if (hint !== undefined && 'id' in hint) {
    const confirmed = await lookup.byHint(hint.id);
    if (confirmed !== undefined) return confirmed;
  } else if (hint !== undefined && hint.server === server && settledEnd(await readSettled(db)) === hint.absentThrough) {
    return [] as unknown as T;
  }
  if (hint !== undefined) hints!.delete(key);
  // read before the lookup: a bound of what it saw
  const through = server === undefined ? undefined : settledEnd(await settledHere(db));
  const answer = await lookup.byAddress();
  const next = hints && lookup.hintOf(answer);
  if (next !== undefined) hints!.set(key, { id: next });
  else if (answer.length === 0 && through !== undefined && serverOf(db) === server) hints!.set(key, { absentThrough: through, server: server! });
  return answer;
}
