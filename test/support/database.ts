import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { DatabaseUnavailableError, type Db, type QueryObserver } from '../../src/db/db.ts';
import { createEmbeddedDb } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { openLayoutDb } from '../../src/db/layout.ts';
import { type ReplicaReads, replicaReads, replicaUrl } from './replicaReads.ts';
import { citusUrl, createCitusScratch } from './citus.ts';

export interface TestDatabase {
  db: Db;
  /** "embedded" or "postgres (<scratch database name>)". */
  label: string;
  /** With TEST_REPLICA_URL: the service's reads, from the replica (replicaReads.ts). */
  reads?: ReplicaReads;
  close(): Promise<void>;
}

/**
 * The backends the database-backed tests run on: embedded PGlite always; with TEST_DATABASE_URL also
 * PostgreSQL with this service's schema, and PostgreSQL with the importer's v2 (Citus) layout on
 * stubbed Citus functions (test/support/v2), unless TEST_DATABASE_LAYOUT=v1 leaves that one out.
 * With TEST_REPLICA_URL too, PostgreSQL alone (its reads from the replica). With TEST_CITUS_URL (a Citus
 * coordinator, test/support/citus.ts) also the v2 layout on real Citus: `postgres-citus`.
 */
export type Backend = 'embedded' | 'postgres' | 'postgres-v2' | 'postgres-citus';

export function testBackends(): Backend[] {
  const citus: Backend[] = citusUrl() ? ['postgres-citus'] : [];
  const available: Backend[] = !process.env.TEST_DATABASE_URL
    ? ['embedded', ...citus]
    : replicaUrl()
      ? ['postgres']
      : process.env.TEST_DATABASE_LAYOUT === 'v1'
        ? ['embedded', 'postgres', ...citus]
        : ['embedded', 'postgres', 'postgres-v2', ...citus];
  return onlyBackends(available, process.env.TEST_BACKENDS);
}

/**
 * TEST_BACKENDS (a comma-separated list, e.g. `postgres-citus`) keeps only those of the available
 * backends: .ci/run's pass on real Citus runs the database tests there alone, not again on the others.
 * A backend it names that is not available (its URL not set) is an error, not a silently empty run.
 */
export function onlyBackends(available: Backend[], wanted: string | undefined): Backend[] {
  if (wanted === undefined || wanted.trim() === '') return available;
  const names = wanted.split(',').map((n) => n.trim()).filter(Boolean);
  for (const name of names) {
    if (!available.includes(name as Backend)) {
      throw new Error(`TEST_BACKENDS names ${name}, which is not available here (available: ${available.join(', ')}; postgres-citus needs TEST_CITUS_URL, postgres and postgres-v2 TEST_DATABASE_URL)`);
    }
  }
  return available.filter((b) => names.includes(b));
}

const V2_FILES = ['../../src/db/migrations/0001_mirror_node_v1_schema.sql', 'v2/citus-stub.sql', 'v2/layout.sql'].map(
  (f) => new URL(f, import.meta.url),
);

/**
 * A database with the v2 layout to copy scratch databases from (building it takes ~20 s, a copy ~5 s),
 * named by a hash of the DDL so that a changed layout gets a new one; built once per server under an
 * advisory lock, so parallel test processes wait for the first.
 */
export async function v2Template(url: string): Promise<string> {
  const ddl = V2_FILES.map((f) => readFileSync(f, 'utf8')).join('\n;\n');
  const name = `cqs_v2_template_${createHash('sha1').update(ddl).digest('hex').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(18002)');
    const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rows.length === 0) {
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building}`);
      await admin.query(`create database ${building}`);
      const target = new URL(url);
      target.pathname = `/${building}`;
      const client = new pg.Client({ connectionString: target.toString() });
      await client.connect();
      try {
        await client.query(`begin;\n${ddl}\n;commit;`);
      } finally {
        await client.end();
      }
      await admin.query(`alter database ${building} rename to ${name}`);
    }
  } finally {
    await admin.query('select pg_advisory_unlock(18002)').catch(() => {});
    await admin.end();
  }
  return name;
}

/** An empty database created next to `url`'s on the same server (a copy of `template` if given); `drop` removes it again. */
export async function createScratchDatabase(
  url: string,
  prefix = 'cqs_test',
  template?: string,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    name,
    url: scratch.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      try {
        await cleanup.query(`drop database if exists ${name} with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/**
 * A fresh, migrated, empty database: an in-memory PGlite, or a scratch database created next to
 * TEST_DATABASE_URL's (dropped again by close()) so that tests never touch data they do not own.
 */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'embedded') {
    const { db } = await createEmbeddedDb();
    await migrate(db);
    return { db, label: 'embedded', close: () => db.close() };
  }
  const citus = citusUrl();
  if (backend === 'postgres-citus' && !citus) throw new Error('TEST_CITUS_URL is not set');
  const url = backend === 'postgres-citus' ? citus : process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const v2 = backend === 'postgres-v2' || backend === 'postgres-citus';
  const scratch =
    backend === 'postgres-citus'
      ? await createCitusScratch(url)
      : v2
        ? await createScratchDatabase(url, 'cqs_test_v2', await v2Template(url))
        : await createScratchDatabase(url);
  const config = loadConfig({ DATABASE_URL: scratch.url }, '/nonexistent');
  const db = v2 ? await openLayoutDb(config) : createPostgresDb(config);
  if (!v2) await migrate(db);
  const replica = v2 ? undefined : replicaUrl();
  const reads = replica ? replicaReads(url, replica, scratch.name) : undefined;
  return {
    db,
    label: reads ? `postgres (${scratch.name}) with reads on the replica ${new URL(replica!).host}` : `${backend} (${scratch.name})`,
    ...(reads ? { reads } : {}),
    async close() {
      await reads?.db.close();
      await db.close();
      await scratch.drop();
    },
  };
}

/**
 * A Db without a pool for HTTP-layer tests: every statement runs `query`; a failure reaches the
 * caller and the observers as the real backends report it (DatabaseUnavailableError).
 */
export function fakeDb(query: Db['query'] = async () => []): Db {
  const observers: QueryObserver[] = [];
  const observed = (async (statement: Parameters<Db['query']>[0], values?: readonly unknown[]) => {
    try {
      const rows = await query(statement, values);
      for (const observer of observers) observer(0, undefined);
      return rows;
    } catch (err) {
      for (const observer of observers) observer(0, err as Error);
      throw new DatabaseUnavailableError(err);
    }
  }) as Db['query'];
  const db: Db = {
    kind: 'embedded',
    query: observed,
    exec: async () => {},
    session: (work) => work(db),
    close: async () => {},
    poolStats: () => ({ total: 0, idle: 0, waiting: 0 }),
    observe: (observer) => void observers.push(observer),
  };
  return db;
}
