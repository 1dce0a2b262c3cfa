import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Registry } from 'prom-client';
import type { ReadPin } from './pin.ts';
import { type PoolQueue, timePoolQueue } from './poolQueue.ts';
import { Sql } from './sql.ts';
import { StatementBatcher, answeredByServer, queryByCallback } from './statementBatch.ts';

/** Statements on a database: parameterised SQL in, typed rows out. */
export interface Session {
  /**
   * Runs a statement as a named prepared statement (parsed once per connection): an `sql` template
   * (values become parameters), or constant text with its parameter values.
   */
  query<R>(statement: Sql | string, values?: readonly unknown[]): Promise<R[]>;
  /** Runs SQL text without parameters (may hold several statements); for migrations and admin work. */
  exec(text: string): Promise<void>;
}

/**
 * The one query interface of the service. Each `query`/`exec` may run on any connection of the pool;
 * work that needs one connection throughout (a transaction, temporary tables) uses `session`.
 */
/** Connections of the pool: open in all, idle among them, and requests waiting for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** Told of every statement: its duration in seconds, and the driver's error when it failed. */
export type QueryObserver = (seconds: number, error: Error | undefined) => void;

export interface Db extends Session {
  readonly kind: 'postgres' | 'embedded';
  /** Metrics of its own (the read replicas' health and lag: replicas.ts), scraped with the others. */
  readonly registry?: Registry;
  /** The pool's connections now. */
  poolStats(): PoolStats;
  /** How long statements wait for a connection (the admission limit's signal); absent where nothing waits for one. */
  readonly queue?: PoolQueue;
  /** Adds an observer of statement durations (metrics). */
  observe(observer: QueryObserver): void;
  /** Runs `work` on one connection held for its whole duration. */
  session<T>(work: (session: Session) => Promise<T>): Promise<T>;
  /**
   * With read replicas: a pin on the server the next statement would go to (the rotation moves on
   * as for a statement). Statements of work run under it (withPin, pin.ts) go to that server.
   * Absent where one server answers every statement.
   */
  pin?(): ReadPin;
  close(): Promise<void>;
}

/** Any failure of the database (connection, timeout, SQL error): answered 503 by the HTTP layer. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`database error: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** The underlying driver or PostgreSQL error of a database failure (for messages). */
export function rootCause(err: unknown): Error {
  let e = err as Error;
  while (e instanceof DatabaseUnavailableError && e.cause) e = e.cause as Error;
  return e;
}

const statementNames = new Map<string, string>();

/** A stable statement name per SQL text, so every connection prepares each statement once. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `cqs_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

type Queryable = pg.Pool | pg.PoolClient;

/** Makes a row object from the values of one row, in the order of the result's columns. */
type RowMaker = (values: unknown[]) => Record<string, unknown>;

/** The row maker of each statement (by name), with the column names it was made for. */
const rowMakers = new Map<string, { columns: string[]; make: RowMaker }>();

/**
 * The rows of a result fetched as arrays (rowMode 'array'), as objects keyed by column name.
 * node-postgres builds its row objects by copying an empty template and storing each column by a
 * key that changes from column to column: a megamorphic store per value, 4-5 % of this process's
 * busy time under the bench mix. Here each statement gets a function made once from its column
 * names, one object literal, so every row of a statement has one shape and is built in one step.
 * The names come from the server's row description, quoted as JSON string literals; the maker is
 * remade when a statement's columns differ from the ones it was made for (the same text on another
 * network's database, whose tables may differ). A later column of the same name wins, as in
 * node-postgres.
 */
export function rowsOf(name: string, result: pg.QueryArrayResult): Record<string, unknown>[] {
  const { rows, fields } = result;
  if (rows.length === 0) return [];
  let maker = rowMakers.get(name);
  if (maker === undefined || !sameColumns(maker.columns, fields)) {
    const columns = fields.map((field) => field.name);
    maker = { columns, make: rowMaker(columns) };
    rowMakers.set(name, maker);
  }
  const objects = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) objects[i] = maker.make(rows[i]!);
  return objects;
}

function sameColumns(columns: readonly string[], fields: readonly pg.FieldDef[]): boolean {
  if (columns.length !== fields.length) return false;
  for (let i = 0; i < columns.length; i++) if (columns[i] !== fields[i]!.name) return false;
  return true;
}

/** `(v) => ({ "a": v[0], "b": v[1] })` for the columns a, b; `__proto__` as a computed key, an own property. */
export function rowMaker(columns: readonly string[]): RowMaker {
  const entries = columns.map((column, i) => `${column === '__proto__' ? `[${JSON.stringify(column)}]` : JSON.stringify(column)}: v[${i}]`);
  return new Function('v', `return { ${entries.join(', ')} };`) as RowMaker;
}

/**
 * Runs a named statement planned for its values (PlanChoice `custom`): its connection plans with
 * force_custom_plan and without sequential scans for that one statement, and returns to the
 * session's settings after it, so that every other statement keeps its cached plan. On a pipelining
 * connection (real PostgreSQL: src/db/postgres.ts) the three are written at once and answered in one
 * round trip; each is its own implicit transaction, so the reset runs also after a statement that
 * failed. Otherwise (the embedded database) they run one after the other. A connection whose settings
 * could not be restored is discarded, never returned to the pool with them.
 */
async function runCustomPlanned(target: Queryable, query: pg.QueryArrayConfig): Promise<pg.QueryArrayResult> {
  const client = target instanceof pg.Pool ? await target.connect() : target;
  /** Set when the connection cannot be trusted to be back in the session's mode: not reused. */
  let discard: Error | undefined;
  try {
    if (client.pipeline) {
      const [set, result, reset] = await Promise.allSettled([
        queryByCallback(client, SET_CUSTOM_PLANS),
        queryByCallback(client, query),
        queryByCallback(client, RESET_PLANS),
      ]);
      if (reset.status === 'rejected') discard = reset.reason as Error;
      if (set.status === 'rejected') throw set.reason; // planned as the session plans: no answer rather than a slow one
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    }
    await client.query(SET_CUSTOM_PLANS);
    try {
      return await client.query(query);
    } finally {
      await client.query(RESET_PLANS).catch((err: Error) => void (discard = err));
    }
  } catch (err) {
    if (!answeredByServer(err as Error)) discard ??= err as Error;
    throw err;
  } finally {
    if (client !== target) (client as pg.PoolClient).release(discard);
  }
}

/**
 * Such a statement is a search bounded by an index range (a timestamp range of at most seven days):
 * a sequential scan reads the whole table instead. A custom plan that expects few matches still picks
 * one (a parallel scan of every log: 2.2 s, where the range takes 0.65 s), so it is ruled out.
 */
const SET_CUSTOM_PLANS = 'set plan_cache_mode = force_custom_plan; set enable_seqscan = off';
/** Back to the values the session started with (its startup options: force_generic_plan, or auto on v2). */
const RESET_PLANS = 'reset plan_cache_mode; reset enable_seqscan';


/** A Session on anything with node-postgres' query method: a pool, or one client of it. */
function sessionOn(target: Queryable, observers: readonly QueryObserver[] = [], batcher?: StatementBatcher): Session {
  return {
    async query<R>(statement: Sql | string, parameters: readonly unknown[] = []): Promise<R[]> {
      const { text, values, plan } = statement instanceof Sql ? statement.compile() : { text: statement, values: parameters, plan: 'cached' };
      const started = observers.length > 0 ? performance.now() : 0;
      let error: Error | undefined;
      try {
        const name = statementName(text);
        const query: pg.QueryArrayConfig = { name, text, values: values as unknown[], rowMode: 'array' };
        const result = plan === 'custom' ? await runCustomPlanned(target, query) : batcher ? await batcher.query(query) : await target.query(query);
        return rowsOf(name, result) as R[];
      } catch (err) {
        error = err as Error;
        throw new DatabaseUnavailableError(err);
      } finally {
        if (observers.length > 0) {
          const seconds = (performance.now() - started) / 1000;
          for (const observer of observers) observer(seconds, error);
        }
      }
    },
    async exec(text: string): Promise<void> {
      try {
        await target.query(text);
      } catch (err) {
        throw new DatabaseUnavailableError(err);
      }
    },
  };
}

/** The failure reaches the caller through the statement that runs next on the client. */
const ignoreCheckedOutError = (): void => {};

/** Wraps a node-postgres pool (real PostgreSQL or PGlite through its node-postgres adapter). */
export function poolDb(kind: Db['kind'], pool: pg.Pool, onClose: () => Promise<void> = async () => {}, batchStatements = 1): Db {
  const observers: QueryObserver[] = [];
  // pg-pool listens for a client's 'error' event only while the client is idle: a connection that ends
  // while a request holds it between two statements (pg_terminate_backend, a restart, a reset) emitted
  // it with no listener, and an unhandled 'error' event ends the process. Every client gets one for
  // its whole life; the next statement on it then fails (503), and pg-pool does not take an unusable
  // client back on release.
  pool.on('connect', (client) => client.on('error', ignoreCheckedOutError));
  const queue = timePoolQueue(pool);
  return {
    kind,
    queue,
    ...sessionOn(pool, observers, batchStatements > 1 ? new StatementBatcher(pool, batchStatements) : undefined),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    observe: (observer) => void observers.push(observer),
    async session<T>(work: (session: Session) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw new DatabaseUnavailableError(err);
      }
      try {
        return await work(sessionOn(client, observers));
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
      await onClose();
    },
  };
}
