/**
 * Computing an answer on one server, with the bound that decides whether it is settled read there
 * first. The cache keeps an answer as settled when its settledAfter is at or below the newest
 * record file (src/db/settled.ts); that bound must hold for the data the answer was computed from.
 * So each answer is computed under a pin (src/db/pin.ts): every statement on the server the
 * rotation picks, and that server's bound read, or taken from the memo all users of the server
 * share (settledHere), before the first of them. A statement that had to
 * run elsewhere (its server went away) leaves the answer without a bound: not settled.
 * Without replicas one server answers everything: the bound is awaited before the data, no pin.
 */
import type { Db } from '../../db/db.ts';
import { withPin } from '../../db/pin.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import type { ReadBasis } from './lifetime.ts';
import { forgetSettled, settledEnd, settledHere } from '../../db/settled.ts';

/** What `work` returned, and what its reads tell of whether it is settled. */
export interface Based<T> {
  value: T;
  basis: ReadBasis;
}

/** Runs later work on the same server as the pinned work (an answer read in several parts: NDJSON). */
export type Stay = <U>(work: () => Promise<U>) => Promise<U>;

/** Runs `work` (an answer's computation) pinned, with its bound read before it. */
export type SettledCompute = <T>(work: (stay: Stay) => Promise<T>) => Promise<Based<T>>;

export function settledCompute(db: Db, refreshMs?: number): SettledCompute {
  return async <T>(work: (stay: Stay) => Promise<T>): Promise<Based<T>> => {
    const pin = db.pin?.();
    if (pin === undefined) {
      const settled = await settledHere(db, refreshMs);
      return { value: await work((later) => later()), basis: { settledThrough: settledEnd(settled), settledBlock: settled && BigInt(settled.number), failedOver: false } };
    }
    return withPin(pin, async () => {
      try {
        const settled = await settledHere(db, refreshMs);
        const value = await work((later) => withPin(pin, later));
        return { value, basis: { settledThrough: settledEnd(settled), settledBlock: settled && BigInt(settled.number), failedOver: pin.failedOver } };
      } finally {
        if (pin.failedOver) forgetSettled(db, pin.server);
      }
    });
  };
}

/**
 * The Indexed-Through header of an answer computed on `basis` (an addition): the newest record file
 * its server had before the answer's first statement, `block=<number>; timestamp=<seconds.nanos>`.
 * Everything through that block is in the answer's data. None when unknown, or when a statement of
 * the answer ran on another server (failover).
 */
export function indexedThrough(basis: ReadBasis): string | undefined {
  if (basis.failedOver || basis.settledThrough === undefined || basis.settledBlock === undefined) return undefined;
  return `block=${basis.settledBlock}; timestamp=${formatTimestamp(basis.settledThrough)}`;
}
