/**
 * What is known of the database, and the one log line of each change of it. The start-up watch
 * (watch.ts) reports whether the database answers and holds the schema; once it is ready, the
 * statements of the requests report failures and recoveries. Nothing is logged while the state
 * stays the same, however many statements fail.
 */
import type { Logger } from 'pino';
import type { Db } from './db.ts';

export type DatabaseCondition =
  /** Not checked yet (a watch is about to). */
  | { state: 'unknown' }
  /** The check could not reach it: `why` says what to check. */
  | { state: 'unreachable'; why: string }
  /** It answers but lacks tables the routes read. */
  | { state: 'schema-missing'; tables: string[] }
  /** It answers and holds every table the routes read. */
  | { state: 'ready' }
  /** It was ready, and statements of requests fail since (the driver's message). */
  | { state: 'failing'; why: string };

/** The log line of entering `next` from `previous`; undefined when nothing changed. */
export function conditionLine(previous: DatabaseCondition, next: DatabaseCondition): { level: 'info' | 'warn'; msg: string } | undefined {
  if (JSON.stringify(previous) === JSON.stringify(next)) return undefined;
  switch (next.state) {
    case 'unknown':
      return undefined;
    case 'unreachable':
      return { level: 'warn', msg: `database unreachable: ${next.why}; retrying` };
    case 'schema-missing':
      return { level: 'warn', msg: `database reachable, schema missing: tables ${next.tables.join(', ')}; retrying` };
    case 'failing':
      return previous.state === 'failing' ? undefined : { level: 'warn', msg: `database statements are failing: ${next.why}; answering 503 until they succeed again` };
    case 'ready':
      return { level: 'info', msg: previous.state === 'failing' ? 'database statements succeed again' : 'database reachable, schema present' };
  }
}

export class DatabaseStatus {
  #condition: DatabaseCondition;
  #logger: Logger | undefined;
  /** Called when a statement succeeds while the database is not known to be ready (a watch checks at once). */
  onStatementSuccess: (() => void) | undefined;
  /** Says what a failed statement's error means (the driver's message when unset). */
  describe: ((error: unknown) => string) | undefined;

  constructor(condition: DatabaseCondition, logger?: Logger) {
    this.#condition = condition;
    this.#logger = logger;
  }

  get condition(): DatabaseCondition {
    return this.#condition;
  }

  /** Whether the start-up watch has found the database ready (later failures are the statements' to report). */
  get started(): boolean {
    return this.#condition.state === 'ready' || this.#condition.state === 'failing';
  }

  useLogger(logger: Logger): void {
    this.#logger ??= logger;
  }

  /** Enters `next`, logging one line when it differs from the current condition. */
  set(next: DatabaseCondition): void {
    const line = conditionLine(this.#condition, next);
    this.#condition = next;
    if (line) this.#logger?.[line.level](line.msg);
  }

  /** A statement of a request failed: the start of an outage when the database was ready. */
  statementFailed(error: Error): void {
    if (this.#condition.state === 'ready') this.set({ state: 'failing', why: this.describe?.(error) ?? error.message });
  }

  /** A statement succeeded: the end of an outage, or (before the watch found it ready) a hint to check now. */
  statementSucceeded(): void {
    if (this.#condition.state === 'failing') this.set({ state: 'ready' });
    else if (!this.started) this.onStatementSuccess?.();
  }
}

const statuses = new WeakMap<Db, DatabaseStatus>();

/**
 * The status of `db`: the one a watch registered, else one that takes the database as ready (an
 * embedded database, or a test's), so that only the statements report on it.
 */
export function databaseStatus(db: Db): DatabaseStatus {
  let status = statuses.get(db);
  if (!status) {
    status = new DatabaseStatus({ state: 'ready' });
    statuses.set(db, status);
  }
  return status;
}

/** Makes `status` the one databaseStatus(db) answers. */
export function registerDatabaseStatus(db: Db, status: DatabaseStatus): void {
  statuses.set(db, status);
}
