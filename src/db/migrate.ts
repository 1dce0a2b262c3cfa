import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

/** src/db: this module's folder, or, when it runs bundled into dist/cli.js, ../src/db from there. */
const HERE = dirname(fileURLToPath(import.meta.url));
const DB_DIR = existsSync(join(HERE, 'migrations')) ? HERE : join(HERE, '..', 'src', 'db');
const MIGRATIONS_DIR = join(DB_DIR, 'migrations');
const RECOMMENDED_INDEXES = join(DB_DIR, 'recommended', 'indexes.sql');

export interface Migration {
  version: string;
  file: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: file.slice(0, 4), file: join(dir, file) }));
}

export interface MigrationResult {
  applied: string[];
  /** Set when the database already holds a mirror node schema that this service did not create. */
  foreignSchema: boolean;
}

/**
 * Creates the mirror node schema in a database this service owns. A database whose schema was made
 * by the mirror node importer (tables present, no migration table of ours) is left untouched.
 */
export async function migrate(db: Db): Promise<MigrationResult> {
  const [state] = await db.query<{ ours: boolean; entity: boolean }>(
    `select to_regclass('public.cqs_schema_migration') is not null as ours,
            to_regclass('public.entity') is not null as entity`,
  );
  if (!state!.ours && state!.entity) return { applied: [], foreignSchema: true };
  await db.exec(`create table if not exists cqs_schema_migration (
    version text primary key,
    applied_at timestamptz not null default now())`);
  const done = new Set(
    (await db.query<{ version: string }>('select version from cqs_schema_migration')).map((r) => r.version),
  );
  const applied: string[] = [];
  for (const migration of listMigrations()) {
    if (done.has(migration.version)) continue;
    const sql = readFileSync(migration.file, 'utf8');
    await db.exec(`begin;\n${sql}\n;insert into cqs_schema_migration (version) values ('${migration.version}');\ncommit;`);
    applied.push(migration.version);
  }
  return { applied, foreignSchema: false };
}

/** The recommended index statements, one per line of recommended/indexes.sql. */
export function recommendedIndexStatements(file = RECOMMENDED_INDEXES): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^create index/i.test(line));
}

/**
 * Adds the recommended indexes to a database whose schema the importer owns, without blocking its
 * writers (CREATE INDEX CONCURRENTLY, one statement at a time, outside any transaction). A
 * partitioned table (v2's contract_result and contract_log), on which PostgreSQL refuses
 * CONCURRENTLY, gets the index on the parent only (invalid until complete), then each partition's
 * concurrently, each attached to it; the parent's becomes valid with the last. Returns the
 * statements run.
 */
export async function addRecommendedIndexes(db: Db): Promise<string[]> {
  const run: string[] = [];
  for (const statement of recommendedIndexStatements()) {
    const parsed = /^create index if not exists (\w+) on (\w+) (.*)$/i.exec(statement);
    const [kind] = parsed ? await db.query<{ relkind: string }>('select relkind from pg_class where oid = to_regclass($1)', [`public.${parsed[2]}`]) : [];
    if (!parsed || kind?.relkind !== 'p') {
      run.push(statement.replace(/^create index if not exists/i, 'create index concurrently if not exists'));
      await db.exec(run[run.length - 1]!);
      continue;
    }
    const [, name, table] = parsed;
    const definition = parsed[3]!.replace(/;\s*$/, '');
    const partitions = await db.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass($1) order by c.relname`,
      [`public.${table}`],
    );
    const steps = [`create index if not exists ${name} on only ${table} ${definition}`];
    for (const partition of partitions) {
      const child = `${name}${partition.name.slice(table!.length)}`.slice(0, 63);
      steps.push(`create index concurrently if not exists ${child} on ${partition.name} ${definition}`);
      steps.push(`alter index ${name} attach partition ${child}`);
    }
    for (const step of steps) {
      await db.exec(step);
      run.push(step);
    }
  }
  return run;
}
