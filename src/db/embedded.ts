import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { type Db, poolDb } from './db.ts';
import { typeParsers } from './types.ts';

/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) in this process, reached through
 * PGlite's node-postgres adapter so that both backends share one driver and one row format.
 * `dataDir` undefined means in memory.
 */
export async function createEmbeddedDb(dataDir?: string): Promise<{ db: Db; pglite: PGlite }> {
  const pglite = await PGlite.create(dataDir ?? 'memory://', { extensions: { btree_gist, pg_trgm } });
  const pool = new pg.Pool({ ...(createPgConfig(pglite) as unknown as pg.PoolConfig), types: typeParsers });
  pool.on('error', () => {});
  const db = poolDb('embedded', pool, async () => {
    await pglite.close();
  });
  return { db, pglite };
}
