import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { DatabaseUnavailableError, type Db, type QueryObserver } from '../../src/db/db.ts';
import { createEmbeddedDb } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { type ReplicaReads, replicaReads, replicaUrl } from './replicaReads.ts';

export interface TestDatabase {
  db: Db;
  /** "embedded" or "postgres (<scratch database name>)". */
  label: string;
  /** With TEST_REPLICA_URL: the service's reads, from the replica (replicaReads.ts). */
  reads?: ReplicaReads;
  close(): Promise<void>;
}

/**
 * Which backends the database-backed tests run on: always embedded, plus PostgreSQL with
 * TEST_DATABASE_URL; with TEST_REPLICA_URL too, PostgreSQL alone (its reads from the replica).
 */
export function testBackends(): Array<'embedded' | 'postgres'> {
  if (process.env.TEST_DATABASE_URL && replicaUrl()) return ['postgres'];
  return process.env.TEST_DATABASE_URL ? ['embedded', 'postgres'] : ['embedded'];
}

/** An empty database created next to `url`'s on the same server; `drop` removes it again. */
export async function createScratchDatabase(url: string, prefix = 'cqs_test'): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
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
export async function openTestDatabase(backend: 'embedded' | 'postgres'): Promise<TestDatabase> {
  if (backend === 'embedded') {
    const { db } = await createEmbeddedDb();
    await migrate(db);
    return { db, label: 'embedded', close: () => db.close() };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const scratch = await createScratchDatabase(url);
  const config = loadConfig({ DATABASE_URL: scratch.url }, '/nonexistent');
  const db = createPostgresDb(config);
  await migrate(db);
  const replica = replicaUrl();
  const reads = replica ? replicaReads(url, replica, scratch.name) : undefined;
  return {
    db,
    label: reads ? `postgres (${scratch.name}) with reads on the replica ${new URL(replica!).host}` : `postgres (${scratch.name})`,
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
