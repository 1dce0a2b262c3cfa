/**
 * The start-up watch of an external database: checks that it answers and holds the schema, and
 * until both hold, checks again after a delay that starts at 0.5 s and doubles up to 30 s (back
 * to 0.5 s whenever the state changes, and at once when a request's statement succeeds). Each
 * change is one log line (status.ts); readiness answers 503 meanwhile, and so do requests.
 */
import type { Logger } from 'pino';
import type { Db } from './db.ts';
import { missingTables } from './readiness.ts';
import { type DatabaseCondition, DatabaseStatus, registerDatabaseStatus } from './status.ts';

export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 30_000;

/** The delay after `delayMs`: doubled, capped at `maxMs`. */
export const nextDelay = (delayMs: number, maxMs = MAX_DELAY_MS): number => Math.min(delayMs * 2, maxMs);

export interface WatchOptions {
  logger: Logger;
  /** One line saying what is wrong with the connection and what to check. */
  describe: (error: unknown) => string;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export interface DatabaseWatch {
  status: DatabaseStatus;
  /** Resolves after the first check, or after `timeoutMs`, whichever comes first. */
  firstCheck(timeoutMs: number): Promise<void>;
  /** Ends the checks (shutdown). */
  stop(): void;
}

/** One check: does the database answer, and does it hold every table the routes read? */
export async function checkDatabase(db: Db, describe: (error: unknown) => string): Promise<DatabaseCondition> {
  try {
    const tables = await missingTables(db);
    return tables.length ? { state: 'schema-missing', tables } : { state: 'ready' };
  } catch (err) {
    return { state: 'unreachable', why: describe(err) };
  }
}

/** Starts watching `db` (registered as its status, so readiness and the statements see it). */
export function watchDatabase(db: Db, options: WatchOptions): DatabaseWatch {
  const { logger, describe, firstDelayMs = FIRST_DELAY_MS, maxDelayMs = MAX_DELAY_MS } = options;
  const status = new DatabaseStatus({ state: 'unknown' }, logger);
  registerDatabaseStatus(db, status);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      timer = setTimeout(wake, ms);
      timer.unref();
    });
  status.onStatementSuccess = () => wake?.();
  status.describe = describe;

  let checked!: () => void;
  const firstChecked = new Promise<void>((resolve) => (checked = resolve));
  void (async () => {
    let delay = firstDelayMs;
    while (!stopped) {
      const before = JSON.stringify(status.condition);
      const condition = await checkDatabase(db, describe);
      if (stopped) break;
      status.set(condition);
      checked();
      if (condition.state === 'ready') break;
      delay = JSON.stringify(condition) === before ? nextDelay(delay, maxDelayMs) : firstDelayMs;
      await sleep(delay);
    }
    checked();
  })();

  return {
    status,
    firstCheck: (timeoutMs) =>
      new Promise<void>((resolve) => {
        const timeout = setTimeout(resolve, timeoutMs);
        void firstChecked.then(() => {
          clearTimeout(timeout);
          resolve();
        });
      }),
    stop() {
      stopped = true;
      wake?.();
    },
  };
}
