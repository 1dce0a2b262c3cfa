#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from './app.ts';
import { ConfigError, type Config, loadConfig } from './config/config.ts';
import type { Db } from './db/db.ts';
import { createEmbeddedDb } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createPostgresDb } from './db/postgres.ts';
import { demoExamples } from './demo/examples.ts';
import { WRITTEN_TABLES } from './demo/generator.ts';
import { DAYS } from './demo/network.ts';
import { ProgressBar } from './demo/progress.ts';
import { type DemoInfo, SeedInterrupted, inspectDatabase, ownsData, readDemoInfo, rootCause, seedDemo } from './demo/seed.ts';
import { StartupError, checkPortFree, describeDbError, describeTarget, portMessage, prepareDataDir } from './demo/startup.ts';

const USAGE = `Usage:
  contract-query-service serve [--port N] [--host H] [--data-dir DIR | --memory] [--migrate]
  contract-query-service seed [--scale N] [--database-url URL | --data-dir DIR] [--force]
  contract-query-service migrate [--database-url URL]

serve    Serves the API. Without DATABASE_URL (or db.* configuration) it uses an embedded
         PostgreSQL (PGlite) kept in --data-dir (default ./data), migrated automatically and, on
         the first start, filled with a generated demo network (5 days of an ERC-20 token, an AMM
         pair, an NFT collection and more; the banner lists example URLs). Later starts reuse it.
         --memory uses a throwaway in-memory database. With DATABASE_URL it serves that
         PostgreSQL as it is, read-only; --migrate first creates the schema if it is empty.
seed     Writes the demo network at --scale N (default 1: about 6,300 contract results and
         12,500 logs; sizes grow linearly) into PostgreSQL (DATABASE_URL or --database-url), or
         without a URL into the embedded database in --data-dir. Creates the schema in an empty
         database and replaces an earlier demo network. It refuses a database holding data it did
         not create - a mirror node's database belongs to its importer - unless --force, which
         empties and refills the tables it writes.
migrate  Creates the mirror node schema in an empty PostgreSQL database (DATABASE_URL or
         --database-url) and exits. A database already filled by the importer is left alone.`;

function fail(message: string, code = 1): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

const status = (message: string) => process.stderr.write(`${message}\n`);

/** Signals received while starting (opening, migrating, seeding): acted upon at the next safe point. */
const stop = {
  signal: null as NodeJS.Signals | null,
  onSignal: null as ((signal: NodeJS.Signals) => void) | null,
  install() {
    const handler = (signal: NodeJS.Signals) => {
      if (this.signal) {
        status(`${signal} again: exiting at once`);
        process.exit(130);
      }
      this.signal = signal;
      if (this.onSignal) this.onSignal(signal);
      else status(`${signal}: stopping once the current database step is done (send it again to exit at once)`);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  },
  code: () => (stop.signal === 'SIGINT' ? 130 : 143),
};

interface OpenedDatabase {
  db: Db;
  /** For messages: "embedded (PGlite) in DIR", "PostgreSQL postgres://...". */
  where: string;
  release: () => void;
}

async function openDatabase(config: Config, options: { dataDir: string; memory: boolean }): Promise<OpenedDatabase> {
  if (config.externalDatabase) {
    return { db: createPostgresDb(config), where: `PostgreSQL ${describeTarget(config).display}`, release: () => {} };
  }
  if (options.memory) return { db: (await createEmbeddedDb()).db, where: 'embedded (PGlite) in memory', release: () => {} };
  const dir = resolve(options.dataDir);
  let lock: ReturnType<typeof prepareDataDir>;
  try {
    lock = prepareDataDir(dir);
  } catch (err) {
    if (err instanceof StartupError) fail(err.message);
    throw err;
  }
  if (!lock.existing) status(`Creating the embedded database in ${dir} (first start)...`);
  try {
    return { db: (await createEmbeddedDb(dir)).db, where: `embedded (PGlite) in ${dir}`, release: lock.release };
  } catch (err) {
    lock.release();
    fail(`cannot open the embedded database in ${dir} (${(err as Error).message}); if an earlier first start was killed, delete the directory and start again`);
  }
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
    const code = (rootCause(err) as NodeJS.ErrnoException).code ?? '';
    if (/^(E[A-Z]+|28...|3D000|57P03)$/.test(code)) fail(describeDbError(err, describeTarget(config, target)));
    fail(`migration failed: ${rootCause(err).message}`);
  } finally {
    await db.close();
  }
}

const number = (n: number) => n.toLocaleString('en-US');

/** First start of an embedded database: the demo network, in one transaction, interruptible between statements. */
async function seedFirstStart(db: Db, where: string, release: () => void): Promise<string> {
  const progress = process.stderr.isTTY ? new ProgressBar(process.stderr, 'Creating the demo network') : null;
  if (!progress) status('Creating the demo network...');
  try {
    const report = await seedDemo(db, {
      scale: 1,
      onProgress: (done, total, label) => progress?.update(done, total, label),
      shouldStop: () => stop.signal !== null,
    });
    progress?.end();
    const c = report.rowCounts;
    return `${where}: demo network created in ${report.seconds.toFixed(1)} s (${DAYS} days, ${number(c.contract_result ?? 0)} contract results, ${number(c.contract_log ?? 0)} logs, ${number(c.record_file ?? 0)} blocks)`;
  } catch (err) {
    progress?.end();
    await db.close().catch(() => {});
    release();
    if (err instanceof SeedInterrupted) {
      status(`${stop.signal}: stopped before the demo network was complete; nothing was kept, the next start creates it again`);
      process.exit(stop.code());
    }
    fail(`cannot create the demo network: ${(err as Error).message}`);
  }
}

function demoLine(info: DemoInfo): string {
  return `demo network (scale ${info.scale}) created ${new Date(info.seededAt).toISOString().replace(/\.\d+Z$/, 'Z')}`;
}

async function runServe(config: Config, flags: { host: string; dataDir: string; memory: boolean; migrate: boolean }) {
  const logger = pino({ level: process.env.LOG_LEVEL ?? 'info' });
  stop.install();
  try {
    await checkPortFree(config.port, flags.host);
  } catch (err) {
    fail((err as Error).message);
  }
  const { db, where, release } = await openDatabase(config, flags);
  const stopIfAsked = async () => {
    if (!stop.signal) return;
    await db.close().catch(() => {});
    release();
    process.exit(stop.code());
  };
  await stopIfAsked();
  let databaseLine = where;
  let demo: DemoInfo | null = null;
  if (db.kind === 'embedded' || flags.migrate) {
    try {
      const result = await migrate(db);
      if (result.applied.length) logger.info({ applied: result.applied }, 'database migrated');
    } catch (err) {
      release();
      if (db.kind === 'postgres') fail(describeDbError(err, describeTarget(config)));
      fail(`cannot prepare the database: ${rootCause(err).message}`);
    }
    await stopIfAsked();
  }
  if (db.kind === 'embedded') {
    const state = await inspectDatabase(db);
    if (state.demo) {
      demo = state.demo;
      databaseLine = `${where}: existing data reused (${demoLine(demo)})`;
    } else if (ownsData(state)) {
      databaseLine = await seedFirstStart(db, where, release);
      demo = await readDemoInfo(db);
    } else {
      databaseLine = `${where}: existing data reused`;
    }
    await stopIfAsked();
  } else {
    try {
      demo = await readDemoInfo(db);
      if (demo) databaseLine = `${where} (${demoLine(demo)})`;
    } catch (err) {
      status(`warning: ${describeDbError(err, describeTarget(config))}; requests answer 503 until the database is reachable`);
    }
  }
  const app = createApp(config, db, logger);
  try {
    await app.listen({ port: config.port, host: flags.host });
  } catch (err) {
    release();
    fail(portMessage(err as NodeJS.ErrnoException, config.port, flags.host));
  }
  const port = (app.server.address() as AddressInfo).port;
  const base = `http://localhost:${port}`;
  const lines = [`contract-query-service listening on ${base}`, `  database: ${databaseLine}`];
  const examples = demo ? demoExamples(demo.facts) : [];
  if (examples.length) {
    lines.push('  try:');
    for (const example of examples) lines.push(`    ${example.title}`, `      ${base}${example.path}`);
  }
  lines.push('  stop with Ctrl-C');
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    await db.close();
    release();
    process.exit(0);
  };
  stop.onSignal = (signal) => void shutdown(signal);
  if (stop.signal) void shutdown(stop.signal);
}

async function runSeed(config: Config, flags: { scale: string; force: boolean; dataDir: string; memory: boolean; url: string | undefined }) {
  const scale = Number(flags.scale);
  if (!/^\d+(\.\d+)?$/.test(flags.scale.trim()) || !(scale > 0) || scale > 1000) {
    fail(`--scale must be a number above 0 and at most 1000, got ${JSON.stringify(flags.scale)}`, 2);
  }
  if (flags.memory) fail('seed writes into a database that outlives it: give --database-url (or DATABASE_URL), or --data-dir', 2);
  stop.install();
  const url = flags.url ?? config.databaseUrl;
  const external = url !== undefined || config.externalDatabase;
  const started = performance.now();
  let db: Db;
  let where: string;
  let release = () => {};
  if (external) {
    const target = describeTarget(config, url);
    where = target.display;
    db = createPostgresDb({ ...config, databaseUrl: url }, {
      url,
      maxConnections: 1,
      statementTimeoutMs: 0,
      connectionTimeoutMs: 15_000,
    });
    try {
      await db.query('select 1');
    } catch (err) {
      await db.close().catch(() => {});
      fail(describeDbError(err, target));
    }
  } else {
    const opened = await openDatabase(config, { dataDir: flags.dataDir, memory: false });
    ({ db, where, release } = opened);
  }
  const close = async () => {
    await db.close().catch(() => {});
    release();
  };
  if (stop.signal) {
    await close();
    process.exit(stop.code());
  }

  const state = await inspectDatabase(db);
  if (!ownsData(state) && !flags.force) {
    await close();
    const what = state.tablesWithData.length
      ? `rows in ${state.tablesWithData.slice(0, 5).join(', ')}${state.tablesWithData.length > 5 ? ', ...' : ''}`
      : `${state.otherTables} tables of another application`;
    fail(
      `refusing to write into ${where}: it holds data that seed did not create (${what}).\n` +
        `A mirror node database is owned by its importer; seeding would empty and refill ${WRITTEN_TABLES.join(', ')}.\n` +
        `Use an empty database, or add --force to replace that data anyway.`,
    );
  }
  if (state.demo) status(`Replacing the ${demoLine(state.demo)} in ${where}`);
  else if (state.tablesWithData.length) status(`--force: replacing the data of ${WRITTEN_TABLES.join(', ')} in ${where}`);
  try {
    const result = await migrate(db);
    if (result.applied.length) {
      status(state.schema === 'none' ? `Created the mirror node schema in ${where}` : `Applied migrations ${result.applied.join(', ')} to ${where}`);
    }
  } catch (err) {
    await close();
    fail(`cannot create the schema: ${rootCause(err).message}`);
  }

  const progress = new ProgressBar(process.stderr, 'Seeding');
  let report;
  try {
    report = await seedDemo(db, {
      scale,
      onProgress: (done, total, label) => progress.update(done, total, label),
      shouldStop: () => stop.signal !== null,
    });
  } catch (err) {
    progress.end();
    await close();
    if (err instanceof SeedInterrupted) {
      status(`${stop.signal}: stopped; the seed transaction was rolled back, no demo data was written`);
      process.exit(stop.code());
    }
    fail(`seeding failed, nothing was written: ${(err as Error).message}`);
  }
  progress.end();
  await close();
  const seconds = (performance.now() - started) / 1000;
  const width = Math.max(...Object.keys(report.rowCounts).map((t) => t.length), 5);
  const total = Object.values(report.rowCounts).reduce((a, b) => a + b, 0);
  const rows = Object.entries(report.rowCounts).map(([table, n]) => `  ${table.padEnd(width)}  ${number(n).padStart(12)}`);
  process.stdout.write(
    [
      `Seeded the demo network (scale ${scale}, ${DAYS} days) into ${where}:`,
      ...rows,
      `  ${'total'.padEnd(width)}  ${number(total).padStart(12)}`,
      `in ${seconds.toFixed(1)} s (generation ${report.seconds.toFixed(1)} s)`,
      '',
    ].join('\n'),
  );
  process.exit(0);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '0.0.0.0' },
        'data-dir': { type: 'string', default: process.env.DATA_DIR ?? './data' },
        memory: { type: 'boolean', default: false },
        migrate: { type: 'boolean', default: false },
        'database-url': { type: 'string' },
        scale: { type: 'string', default: '1' },
        force: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}; see --help`, 2);
  }
  const { values, positionals } = parsed;
  const command = positionals[0] ?? 'serve';
  if (values.help || !['serve', 'migrate', 'seed'].includes(command)) {
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
  if (command === 'seed') {
    return runSeed(config, {
      scale: values.scale!,
      force: values.force!,
      dataDir: values['data-dir']!,
      memory: values.memory!,
      url: values['database-url'],
    });
  }
  return runServe(config, { host: values.host!, dataDir: values['data-dir']!, memory: values.memory!, migrate: values.migrate! });
}

main().catch((err) => fail((err as Error).stack ?? String(err)));
