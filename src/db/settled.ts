/**
 * How far the network's history is settled on one server: the consensus end of its newest record
 * file. The importer writes a record file with all its transactions, results, logs and sidecars in
 * one database transaction and in consensus order, so nothing new can appear at or below that
 * timestamp, and a server's data only grows (a replica replays in order). A value read on a server
 * before an answer's first statement there is therefore a safe bound for that answer; an older one
 * is merely conservative. Each server's value is read at most once per second (one statement on
 * the primary key). Only the first read is awaited: once a value is older than a second, callers
 * take it as it is (read before their statements, so still a bound) while the next read runs behind
 * them. No request waits for that read, under load (where it cost the requests behind it a round
 * trip) or during a network cut (where it waited out the connection timeout before a request that
 * reads nothing could answer). A failing read makes no answer settled until the next.
 */
import { type Block, newestBlock } from './blocks.ts';
import type { Db } from './db.ts';
import { factStore } from './facts.ts';
import { activePin } from './pin.ts';

const REFRESH_MS = 1000;

/** The newest block where `db` sends the statement (blocks.ts); undefined without one, or when the read fails. */
export async function readSettled(db: Db): Promise<Block | undefined> {
  try {
    return await newestBlock(db);
  } catch {
    return undefined;
  }
}

/** A block's consensus end as a number (undefined for none): how far a server is settled. */
export const settledEnd = (block: Block | undefined): bigint | undefined => (block === undefined ? undefined : BigInt(block.consensus_end));

/** A reader of one server's value: readSettled, as run on that server (a failure counts as undefined). */
export type SettledReader<T> = () => Promise<T | undefined>;

/**
 * One server's value, read afresh when older than `refreshMs`; concurrent callers share one read, and
 * only a caller with no value yet waits for it.
 */
export class SettledMemo<T = Block> {
  #value: T | undefined;
  #readAt = -Infinity;
  #reading: Promise<T | undefined> | undefined;

  constructor(
    private readonly refreshMs = REFRESH_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The value of the newest completed read (`read` runs when it is older than `refreshMs`, behind the
   * caller); the first caller, and any caller before that read completes, waits for it.
   */
  get(read: SettledReader<T>): Promise<T | undefined> {
    if (this.now() - this.#readAt < this.refreshMs) return Promise.resolve(this.#value);
    const reading = this.#refresh(read);
    return this.#readAt === -Infinity ? reading : Promise.resolve(this.#value);
  }

  #refresh(read: SettledReader<T>): Promise<T | undefined> {
    return (this.#reading ??= read()
      .catch(() => undefined)
      .then((value) => {
        this.#value = value;
        this.#readAt = this.now();
        return value;
      })
      .finally(() => (this.#reading = undefined)));
  }
}

/** The key of a Db's one server where no pin is taken (no replicas). */
const ANY_SERVER = '';

/** Every memo of `db`: one per server and refresh interval, shared by all its users in the process. */
const memosOf = (db: Db): Map<string, SettledMemo<Block>> => factStore(db, 'settled.memos', () => new Map());

/**
 * The settled value of the server the running work is pinned to (activePin), or of `db`'s one server
 * without a pin, from the memo every user shares: the response cache, the additions' Indexed-Through
 * and the newest-first split read it at most once per `refreshMs` per server together. A read that ran
 * on another server than the pin's (its server went away meanwhile) counts as no value.
 */
export function settledHere(db: Db, refreshMs = REFRESH_MS): Promise<Block | undefined> {
  const pin = activePin();
  const key = `${pin?.server ?? ANY_SERVER} ${refreshMs}`;
  const memos = memosOf(db);
  let memo = memos.get(key);
  if (memo === undefined) memos.set(key, (memo = new SettledMemo(refreshMs)));
  return memo.get(async () => {
    const value = await readSettled(db);
    return pin?.failedOver === true ? undefined : value;
  });
}

/** Drops the memo of `server` (it went away: when it is back, its value is read afresh). */
export function forgetSettled(db: Db, server: string): void {
  const memos = memosOf(db);
  for (const key of memos.keys()) if (key.startsWith(`${server} `)) memos.delete(key);
}
