/**
 * Facts kept per database and process: what a statement found that later statements need not read
 * again, because the importer only ever adds to the database, in consensus order (an address's entity,
 * a record file, where a contract's rows start). Each kind lives in a store of its own, made on first
 * use. A database whose history is rewritten under a running process (restored, loaded afresh) makes
 * them wrong: `forgetFacts` drops them all (the tests' fixtures do that between specs; an operator
 * restarts the service).
 */
import type { Db } from './db.ts';

const stores = new WeakMap<Db, Map<string, unknown>>();

/** The store `name` of `db`, made by `make` on first use. */
export function factStore<T>(db: Db, name: string, make: () => T): T {
  let byName = stores.get(db);
  if (byName === undefined) stores.set(db, (byName = new Map()));
  let store = byName.get(name) as T | undefined;
  if (store === undefined) byName.set(name, (store = make()));
  return store;
}

/** Drops every fact kept for `db`. */
export function forgetFacts(db: Db): void {
  stores.delete(db);
}
