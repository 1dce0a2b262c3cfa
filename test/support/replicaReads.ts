/**
 * Reads on a streaming replica for the database tests and the conformance run: with
 * TEST_REPLICA_URL (a replica of TEST_DATABASE_URL's server), a test database's rows are written on
 * the primary and the service reads them through replicatedDb, from the replica. settle() waits
 * until the replica has replayed every write so far and has been checked since, so that reads go
 * to it; readsBy() tells where they went.
 */
import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { createPostgresDb, postgresOptionsFromConfig } from '../../src/db/postgres.ts';
import { type ReplicatedDb, replicatedDb } from '../../src/db/replicas.ts';

export interface ReplicaReads {
  db: ReplicatedDb;
  /** Waits until the replica holds every write made on the primary so far, and is in the rotation. */
  settle(): Promise<void>;
}

export const replicaUrl = (): string | undefined => process.env.TEST_REPLICA_URL || undefined;

/** Reads of the scratch database `name` (on the primary at `primaryUrl`) through the replica at `replica`. */
export function replicaReads(primaryUrl: string, replica: string, name: string): ReplicaReads {
  const onDatabase = (url: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const primaryConfig = loadConfig({ DATABASE_URL: onDatabase(primaryUrl) }, '/nonexistent');
  const replicaConfig = loadConfig({ DATABASE_URL: onDatabase(replica) }, '/nonexistent');
  const serving = (config: typeof primaryConfig) => createPostgresDb(config, { ...postgresOptionsFromConfig(config), readOnly: true });
  const target = new URL(replica);
  const db = replicatedDb(serving(primaryConfig), [{ name: `${target.hostname}:${target.port || 5432}`, db: serving(replicaConfig) }], {
    maxLagMs: 60_000,
    checkIntervalMs: 200,
  });
  const one = async (url: string, text: string): Promise<Record<string, unknown>> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows[0]!;
    } finally {
      await client.end();
    }
  };
  return {
    db,
    async settle() {
      const { lsn } = await one(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
      const deadline = Date.now() + 30_000;
      while (!(await one(replica, `select pg_last_wal_replay_lsn() >= '${String(lsn)}'::pg_lsn as done`)).done) {
        if (Date.now() > deadline) throw new Error(`the replica ${replica} did not replay up to ${String(lsn)} within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await db.checkNow();
      const state = db.replicas()[0]!.state;
      if (state !== 'healthy') throw new Error(`the replica ${replica} is ${state} after catching up`);
    },
  };
}
