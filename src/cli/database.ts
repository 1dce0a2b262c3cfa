import { resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { type EmbeddedOptions, createEmbeddedDb } from '../db/embedded.ts';
import { type PostgresOptions, createPostgresDb, sslOptions } from '../db/postgres.ts';
import { fail, status } from './output.ts';
import { StartupError, describeDbError, describeTarget, prepareDataDir } from './startup.ts';
import { unpackDirectory } from './template.ts';

export interface OpenedDatabase {
  db: Db;
  /** For messages: "embedded (PGlite) in DIR", "PostgreSQL postgres://...". */
  where: string;
  /** Closes the database and releases the data directory's lock. */
  close: () => Promise<void>;
  /** An embedded database on its first start: copied from a template (the path), or created. */
  firstStart?: { template: string | undefined };
}

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/**
 * The embedded database in `dataDir` (created on first use, locked against a second process), or a
 * throwaway one in memory. With `template` (a packed data directory, src/cli/template.ts) a first
 * start copies that database in instead of creating an empty one. Problems end the process with one
 * line saying what to check.
 */
export async function openEmbedded(options: {
  dataDir: string;
  memory: boolean;
  template?: string | undefined;
  /** Told once if the database's thread dies (src/db/embeddedLink.ts); by default a line on stderr. */
  onExit?: (err: Error) => void;
}): Promise<OpenedDatabase> {
  const embedded: EmbeddedOptions = options.onExit ? { onExit: options.onExit } : {};
  if (options.memory) {
    const { db } = await createEmbeddedDb(undefined, embedded);
    return { db, where: 'embedded (PGlite) in memory', close: () => db.close() };
  }
  const dir = resolve(options.dataDir);
  let lock: ReturnType<typeof prepareDataDir>;
  try {
    lock = prepareDataDir(dir);
  } catch (err) {
    if (err instanceof StartupError) fail(err.message);
    throw err;
  }
  const started = performance.now();
  const template = lock.existing ? undefined : options.template;
  if (template) {
    status(`Copying the database of ${template} into ${dir} (first start)...`);
    try {
      const bytes = unpackDirectory(template, dir);
      status(`Copied ${(bytes / 1e6).toFixed(0)} MB in ${seconds(started)}`);
    } catch (err) {
      lock.release();
      fail(`cannot copy the database template ${options.template} (DATA_TEMPLATE) into ${dir}: ${(err as Error).message}`);
    }
  } else if (!lock.existing) {
    status(`Creating the embedded database in ${dir} (first start)...`);
  }
  try {
    const opening = performance.now();
    const { db } = await createEmbeddedDb(dir, embedded);
    if (!lock.existing && !template) status(`Created the embedded database in ${seconds(opening)}`);
    return {
      db,
      where: `embedded (PGlite) in ${dir}`,
      close: async () => {
        await db.close().catch(() => {});
        lock.release();
      },
      ...(lock.existing ? {} : { firstStart: { template } }),
    };
  } catch (err) {
    lock.release();
    fail(`cannot open the embedded database in ${dir} (${(err as Error).message}); if an earlier first start was killed, delete the directory and start again`);
  }
}

/**
 * A PostgreSQL connection for an administrative command (migrate, seed): one connection, no
 * statement timeout, checked at once so that a wrong URL fails before any work.
 */
export async function openAdminPostgres(config: Config, url: string | undefined): Promise<OpenedDatabase> {
  const target = describeTarget(config, url);
  const options: PostgresOptions = { url, maxConnections: 1, statementTimeoutMs: 0, connectionTimeoutMs: 15_000, ssl: sslOptions(config.db.tls) };
  const db = createPostgresDb({ ...config, databaseUrl: url }, options);
  try {
    await db.query('select 1');
  } catch (err) {
    await db.close().catch(() => {});
    fail(describeDbError(err, target));
  }
  return { db, where: target.display, close: () => db.close().catch(() => {}) };
}
