/**
 * How long statements wait for a connection of a node-postgres pool: each checkout is timed from
 * its `connect` call to the connection it gets (pool.query, the statement batches and the sessions
 * all check out through `connect`). The admission limit (src/http/server/load/limiter.ts) sheds
 * on these waits.
 */
import type pg from 'pg';

/** A connection was given after `waitMs` of waiting (a new connection's setup included). */
export type WaitObserver = (waitMs: number, now: number) => void;

export interface PoolQueue {
  /** Adds an observer of every checkout's wait. */
  observeWaits(observer: WaitObserver): void;
  /** ms the longest-waiting checkout has waited so far at `now` (performance.now()); 0 when none waits. */
  oldestWaitMs(now: number): number;
}

type Connect = (callback?: (err: Error | undefined, client: pg.PoolClient, done: (release?: unknown) => void) => void) => Promise<pg.PoolClient> | undefined;

/** Times the checkouts of `pool` (wraps its `connect`, once). */
export function timePoolQueue(pool: pg.Pool): PoolQueue {
  const observers: WaitObserver[] = [];
  // pending checkouts by their start, oldest first (a Set keeps insertion order)
  const pending = new Set<{ started: number }>();
  const given = (entry: { started: number }) => {
    pending.delete(entry);
    const now = performance.now();
    for (const observer of observers) observer(now - entry.started, now);
  };
  const connect = (pool.connect as Connect).bind(pool);
  const timed: Connect = (callback) => {
    const entry = { started: performance.now() };
    pending.add(entry);
    if (callback) {
      return connect((err, client, done) => {
        if (err) pending.delete(entry);
        else given(entry);
        callback(err, client, done);
      });
    }
    return connect()!.then(
      (client) => {
        given(entry);
        return client;
      },
      (err: unknown) => {
        pending.delete(entry);
        throw err;
      },
    );
  };
  (pool as { connect: Connect }).connect = timed;
  return {
    observeWaits: (observer) => void observers.push(observer),
    oldestWaitMs(now) {
      const oldest = pending.values().next();
      return oldest.done ? 0 : now - oldest.value.started;
    },
  };
}
