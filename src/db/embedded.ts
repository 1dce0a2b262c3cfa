import pg from 'pg';
import { type Db, poolDb } from './db.ts';
import { EmbeddedLink } from './embeddedLink.ts';
import { typeParsers } from './types.ts';
import { WorkerSocket } from './workerSocket.ts';

export interface EmbeddedOptions {
  /** Told once when the database's thread dies (statements fail from then on); by default a line on stderr. */
  onExit?: (err: Error) => void;
}

const reportExit = (err: Error): void => void process.stderr.write(`error: ${err.message}; statements fail until a restart\n`);

/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) in a thread of its own
 * (src/db/embeddedWorker.ts), reached through node-postgres over a socket to that thread
 * (src/db/workerSocket.ts), so that both backends share one driver and one row format and a
 * statement, however long, never holds this thread's event loop. `dataDir` undefined means in memory.
 *
 * PGlite is one session: the pool has one connection, which statements wait for in turn (the pool's
 * queue, as on PostgreSQL), and it is kept while idle: a new one would find the session reset
 * (embeddedWorker.ts) and prepare every statement again.
 */
export async function createEmbeddedDb(dataDir?: string, options: EmbeddedOptions = {}): Promise<{ db: Db; link: EmbeddedLink }> {
  const link = await EmbeddedLink.start(dataDir, options.onExit ?? reportExit);
  const pool = new pg.Pool({ stream: () => new WorkerSocket(link), max: 1, idleTimeoutMillis: 0, types: typeParsers });
  pool.on('error', () => {});
  const db = poolDb('embedded', pool, () => link.close());
  return { db, link };
}
