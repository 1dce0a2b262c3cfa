import { type Db, type Session, rootCause } from '../db/db.ts';
import { WRITTEN_TABLES, generationSteps } from './generator.ts';
import { GENERATOR_VERSION, demoSize } from './network.ts';

/** The marker row written with the demo data: its presence means "this data was made by `seed`". */
export interface DemoInfo {
  generatorVersion: number;
  scale: number;
  seededAt: string;
  seconds: number;
  facts: Record<string, string>;
  rowCounts: Record<string, number>;
}

export interface DatabaseState {
  /** 'none': no mirror node schema; 'ours': created by this service's migrations; 'foreign': made by someone else (the importer). */
  schema: 'none' | 'ours' | 'foreign';
  demo: DemoInfo | null;
  /** Mirror node tables of WRITTEN_TABLES that hold rows. */
  tablesWithData: string[];
  /** Without a mirror node schema: the number of other tables in schema public (another application's). */
  otherTables: number;
}

export class SeedInterrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** A failed generator statement (a bug, or a database that rejects the demo rows). */
export class SeedStepError extends Error {
  constructor(readonly step: string, readonly statement: string, cause: unknown) {
    super(`seeding failed at step "${step}": ${rootCause(cause).message}`, { cause });
  }
}

const MARKER = 'cqs_demo';
const WORKING_TABLES = ['d_sig', 'd_tpl', 'd_bloom', 'd_bc', 'd_reason', 'd_acct', 'd_con', 'd_tx', 'd_nonce', 'd_state', 'd_nft', 'd_fact',
  'd_atpl', 'd_stpl', 'd_sc', 'd_slot'];

/** Reads what the database holds, without changing anything. */
export async function inspectDatabase(db: Session): Promise<DatabaseState> {
  const [state] = await db.query<{ ours: boolean; entity: boolean; others: string }>(
    `select to_regclass('public.cqs_schema_migration') is not null as ours,
            to_regclass('public.entity') is not null as entity,
            (select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'public' and c.relkind in ('r', 'p') and c.relname not like 'cqs\\_%') as others`,
  );
  const schema = !state!.entity ? 'none' : state!.ours ? 'ours' : 'foreign';
  const demo = await readDemoInfo(db);
  const tablesWithData: string[] = [];
  if (schema !== 'none') {
    const present = await db.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'public' and c.relname = any($1::text[])`,
      [[...WRITTEN_TABLES]],
    );
    if (present.length) {
      const [row] = await db.query<Record<string, boolean>>(
        `select ${present.map((t) => `exists (select 1 from public.${quoteIdent(t.name)}) as ${quoteIdent(t.name)}`).join(', ')}`,
      );
      for (const [table, has] of Object.entries(row ?? {})) if (has) tablesWithData.push(table);
    }
  }
  return { schema, demo, tablesWithData, otherTables: schema === 'none' ? Number(state!.others) : 0 };
}

/** The marker row of a demo network, or null when the database holds none. */
export async function readDemoInfo(db: Session): Promise<DemoInfo | null> {
  const [exists] = await db.query<{ marker: boolean }>(`select to_regclass('public.${MARKER}') is not null as marker`);
  if (!exists!.marker) return null;
  const [row] = await db.query<{ info: DemoInfo }>(
    `select json_build_object('generatorVersion', generator_version, 'scale', scale, 'seededAt', seeded_at,
            'seconds', seconds, 'facts', facts, 'rowCounts', row_counts) as info from ${MARKER} limit 1`,
  );
  return row?.info ?? null;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** True when seeding would only replace data this tool wrote (or write into empty tables). */
export function ownsData(state: DatabaseState): boolean {
  if (state.demo) return true;
  if (state.schema === 'none') return state.otherTables === 0;
  return state.schema === 'ours' && state.tablesWithData.length === 0;
}

export interface SeedOptions {
  scale: number;
  /** The activity's seed (default: the demo network's own); another seed, another network of the same cast. */
  seed?: number;
  /** Called after each step: done and total in weight units, the label of the next step. */
  onProgress?: (done: number, total: number, label: string) => void;
  /** Polled between statements; true rolls back and throws SeedInterrupted. */
  shouldStop?: () => boolean;
}

export interface SeedReport {
  scale: number;
  seconds: number;
  rowCounts: Record<string, number>;
  facts: Record<string, string>;
}

/**
 * Writes the demo network in one transaction: the tables of WRITTEN_TABLES are truncated and refilled
 * and the marker row is written last, so an interrupted or failed run leaves the previous state.
 * The caller decides whether it may write (see inspectDatabase / ownsData) and creates the schema.
 * Runs on one connection: the transaction and the temporary working tables belong to it.
 */
export function seedDemo(db: Db, options: SeedOptions): Promise<SeedReport> {
  return db.session((session) => seedInSession(session, options));
}

async function seedInSession(db: Session, options: SeedOptions): Promise<SeedReport> {
  const started = performance.now();
  const size = demoSize(options.scale, options.seed);
  const steps = generationSteps(size);
  const total = steps.reduce((sum, s) => sum + s.weight, 0);
  let done = 0;
  await db.exec('begin');
  try {
    // bulk-load settings for this transaction only (ignored where not settable)
    await db.exec(`set local synchronous_commit = off; set local work_mem = '64MB'`);
    await db.exec(`truncate ${WRITTEN_TABLES.join(', ')}`);
    for (const step of steps) {
      options.onProgress?.(done, total, step.label);
      for (const statement of step.statements) {
        // both databases answer through the event loop (the embedded one from its own thread), so a
        // signal's handler has run by the time the statement before is done
        if (options.shouldStop?.()) throw new SeedInterrupted();
        try {
          await db.exec(statement);
        } catch (err) {
          throw new SeedStepError(step.label, statement, err);
        }
      }
      done += step.weight;
    }
    options.onProgress?.(done, total, 'counting');
    const facts = Object.fromEntries(
      (await db.query<{ key: string; value: string }>(`select key, value::text as value from d_fact order by key`)).map((r) => [r.key, r.value]),
    );
    const [counts] = await db.query<Record<string, string>>(
      `select ${WRITTEN_TABLES.map((t) => `(select count(*) from ${quoteIdent(t)}) as ${quoteIdent(t)}`).join(', ')}`,
    );
    const rowCounts = Object.fromEntries(Object.entries(counts!).map(([k, v]) => [k, Number(v)]));
    const seconds = Math.round((performance.now() - started) / 10) / 100;
    await db.exec(`create table if not exists ${MARKER} (
      generator_version integer not null,
      scale double precision not null,
      seed bigint not null,
      seeded_at timestamptz not null default now(),
      seconds double precision not null,
      facts jsonb not null,
      row_counts jsonb not null)`);
    await db.exec(`delete from ${MARKER}`);
    await db.query(
      `insert into ${MARKER} (generator_version, scale, seed, seconds, facts, row_counts) values ($1, $2, $3, $4, $5, $6)`,
      [GENERATOR_VERSION, options.scale, size.seed, seconds, JSON.stringify(facts), JSON.stringify(rowCounts)],
    );
    if (options.shouldStop?.()) throw new SeedInterrupted();
    options.onProgress?.(done, total, 'analyzing');
    for (const table of WRITTEN_TABLES) await db.exec(`analyze ${quoteIdent(table)}`);
    await db.exec('commit');
    options.onProgress?.(total, total, 'done');
    return { scale: options.scale, seconds: Math.round((performance.now() - started) / 10) / 100, rowCounts, facts };
  } catch (err) {
    await db.exec('rollback').catch(() => {});
    throw err;
  } finally {
    // the working tables and helper functions are temporary; drop them for long-lived sessions
    await db.exec(`drop table if exists ${WORKING_TABLES.join(', ')}`).catch(() => {});
    await db.exec(`drop function if exists pg_temp.u, pg_temp.hi, pg_temp.h, pg_temp.h48, pg_temp.w, pg_temp.wa, pg_temp.lz,
      pg_temp.strip, pg_temp.tint, pg_temp.jbig, pg_temp.bs, pg_temp.be, pg_temp.dist, pg_temp.bhash, pg_temp.slot32, pg_temp.slot,
      pg_temp.sval, pg_temp.wval, pg_temp.nfixed, pg_temp.pre, pg_temp.m0 cascade`).catch(() => {});
  }
}
