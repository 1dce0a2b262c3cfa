/**
 * One request's statements pinned to one server. With read replicas (replicas.ts) each statement
 * goes to the next server of the rotation; work run under a pin sends all of its statements (and
 * those of anything it starts) to the server the pin was taken on, so that they see one server's
 * data, which only grows. The response cache pins each answer it computes and reads the newest
 * record file there first (src/http/cache/settledCompute.ts). The pin travels with the work through
 * AsyncLocalStorage: the routes keep their one Db, whose identity per-database memos key on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Where one request's statements go. */
export interface ReadPin {
  /** The server it was taken on: 'primary' or a replica's host:port. */
  readonly server: string;
  /**
   * True once a statement of the work ran on another server than the pin's (its server went away
   * or left the rotation): the work's data may then mix two servers' points of replay.
   */
  readonly failedOver: boolean;
}

const current = new AsyncLocalStorage<ReadPin>();

/** Runs `work` with its statements under `pin`. */
export function withPin<T>(pin: ReadPin, work: () => Promise<T>): Promise<T> {
  return current.run(pin, work);
}

/** The pin of the work running now, if any. */
export function activePin(): ReadPin | undefined {
  return current.getStore();
}
