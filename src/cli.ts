#!/usr/bin/env node
import { mkdirSync, accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createApp } from './app.ts';
import { ConfigError, type Config, loadConfig } from './config/config.ts';
import type { Db } from './db/db.ts';
import { createEmbeddedDb } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createPostgresDb } from './db/postgres.ts';

const USAGE = `Usage:
  contract-query-service serve [--port N] [--host H] [--data-dir DIR | --memory] [--migrate]
  contract-query-service migrate [--database-url URL]

serve    Serves the API. Without DATABASE_URL (or db.* configuration) it uses an embedded
         PostgreSQL (PGlite) kept in --data-dir (default ./data), migrated automatically;
         --memory uses a throwaway in-memory database. With DATABASE_URL it serves that
         PostgreSQL as it is, read-only; --migrate first creates the schema if it is empty.
migrate  Creates the mirror node schema in an empty PostgreSQL database (DATABASE_URL or
         --database-url) and exits. A database already filled by the importer is left alone.`;

function fail(message: string, code = 1): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

async function openDatabase(config: Config, options: { dataDir: string; memory: boolean }): Promise<Db> {
  if (config.externalDatabase) return createPostgresDb(config);
  if (options.memory) return (await createEmbeddedDb()).db;
  const dir = resolve(options.dataDir);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    fail(`the data directory ${dir} is not writable (${(err as Error).message}); choose another with --data-dir or use --memory`);
  }
  return (await createEmbeddedDb(dir)).db;
}

async function runMigrate(config: Config, url: string | undefined): Promise<void> {
  const target = url ?? config.databaseUrl;
  if (!target && !config.externalDatabase) fail('migrate needs DATABASE_URL or --database-url', 2);
  const db = createPostgresDb({ ...config, databaseUrl: target }, {
    url: target,
    maxConnections: 1,
    statementTimeoutMs: 600_000,
    connectionTimeoutMs: config.db.pool.connectionTimeout,
  });
  try {
    const result = await migrate(db);
    if (result.foreignSchema) {
      process.stdout.write('The database already holds a mirror node schema made by its importer; nothing was changed.\n');
    } else {
      process.stdout.write(result.applied.length ? `Applied migrations: ${result.applied.join(', ')}\n` : 'Schema is up to date.\n');
    }
  } catch (err) {
    fail(`migration failed: ${(err as Error).message}`);
  } finally {
    await db.close();
  }
}

async function runServe(config: Config, flags: { host: string; dataDir: string; memory: boolean; migrate: boolean }) {
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
  const db = await openDatabase(config, flags);
  if (db.kind === 'embedded' || flags.migrate) {
    try {
      const result = await migrate(db);
      if (result.applied.length) logger.info({ applied: result.applied }, 'database migrated');
    } catch (err) {
      fail(`cannot prepare the database: ${(err as Error).message}`);
    }
  } else {
    db.query('select 1').catch((err: Error) =>
      logger.warn({ err: err.cause ?? err }, 'the database is not reachable yet; requests answer 503 until it is'),
    );
  }
  const app = createApp(config, db, logger);
  try {
    await app.listen({ port: config.port, host: flags.host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${config.port} is already in use; set another with --port or HIERO_MIRROR_REST_PORT`);
    fail(`cannot listen on ${flags.host}:${config.port}: ${(err as Error).message}`);
  }
  const base = `http://localhost:${config.port}`;
  process.stdout.write(
    `contract-query-service listening on ${base} (${db.kind === 'embedded' ? 'embedded database' : 'PostgreSQL'})\n` +
      `  ${base}/api/v1/contracts/0.0.1001\n`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '0.0.0.0' },
      'data-dir': { type: 'string', default: process.env.DATA_DIR ?? './data' },
      memory: { type: 'boolean', default: false },
      migrate: { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals[0] ?? 'serve';
  if (values.help || !['serve', 'migrate'].includes(command)) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  let config: Config;
  try {
    const env = { ...process.env };
    if (values['database-url']) env.DATABASE_URL = values['database-url'];
    config = loadConfig(env, process.cwd(), values.port ? { port: values.port } : {});
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  if (command === 'migrate') return runMigrate(config, values['database-url']);
  return runServe(config, { host: values.host!, dataDir: values['data-dir']!, memory: values.memory!, migrate: values.migrate! });
}

main().catch((err) => fail((err as Error).stack ?? String(err)));
