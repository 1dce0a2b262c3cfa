import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pino, { type Logger } from 'pino';
import { createApp } from '../app.ts';
import type { Config } from '../config/config.ts';
import { type Db, rootCause } from '../db/db.ts';
import { describeLayout, planCacheModeFor, probeLayout, setDbLayout } from '../db/layout.ts';
import { migrate } from '../db/migrate.ts';
import { type PostgresOptions, postgresOptionsFromConfig } from '../db/postgres.ts';
import { openServingDb } from '../db/replicas-open.ts';
import { type DatabaseWatch, watchDatabase } from '../db/watch.ts';
import { demoExamples, demoLine } from '../demo/examples.ts';
import { DAYS } from '../demo/network.ts';
import { startLiveWriter } from '../demo/live.ts';
import { drainOf } from '../http/server/plugins/drain.ts';
import { type DemoInfo, SeedInterrupted, inspectDatabase, ownsData, readDemoInfo, seedDemo } from '../demo/seed.ts';
import { isPrimary, runPrimary, workerNumber } from './cluster.ts';
import { type OpenedDatabase, openAdminPostgres, openEmbedded } from './database.ts';
import { fail, formatCount, signals, status } from './output.ts';
import { ProgressBar } from './progress.ts';
import { checkPortFree, describeDbError, describeTarget, portMessage } from './startup.ts';

/** How long after the grace a shutdown that still has not ended exits anyway (code 1). */
const SHUTDOWN_BACKSTOP_MS = 5000;
/** Log lines are written out once this many bytes have gathered... */
const LOG_BUFFER_BYTES = 4096;
/** ...or every this many ms. */
const LOG_FLUSH_MS = 250;
/** A live demo network's block time (--live). */
const LIVE_BLOCK_MS = 2000;
/** How long closing the database pool may take during a shutdown. */
const DATABASE_CLOSE_MS = 3000;

export interface ServeFlags {
  host: string;
  dataDir: string;
  memory: boolean;
  migrate: boolean;
  workers: number;
  /** Keep extending the embedded demo network with a new block every 2 s (src/demo/live.ts). */
  live: boolean;
}

/** A database ready to serve, and the line the banner says about it. */
interface Served extends OpenedDatabase {
  line: string;
  demo: DemoInfo | null;
}

/** First start of an embedded database: the demo network, in one transaction, interruptible between statements. */
async function seedFirstStart(opened: OpenedDatabase): Promise<string> {
  const progress = process.stderr.isTTY ? new ProgressBar(process.stderr, 'Creating the demo network') : null;
  if (!progress) status('Creating the demo network...');
  try {
    const report = await seedDemo(opened.db, {
      scale: 1,
      onProgress: (done, total, label) => progress?.update(done, total, label),
      shouldStop: () => signals.received !== null,
    });
    progress?.end();
    const c = report.rowCounts;
    return `${opened.where}: demo network created in ${report.seconds.toFixed(1)} s (${DAYS} days, ${formatCount(c.contract_result ?? 0)} contract results, ${formatCount(c.contract_log ?? 0)} logs, ${formatCount(c.record_file ?? 0)} blocks)`;
  } catch (err) {
    progress?.end();
    await opened.close();
    if (err instanceof SeedInterrupted) {
      status(`${signals.received}: stopped before the demo network was complete; nothing was kept, the next start creates it again`);
      process.exit(signals.exitCode());
    }
    fail(`cannot create the demo network: ${(err as Error).message}`);
  }
}

/** Exits (with the signal's code) when a signal arrived while preparing. */
async function exitIfSignalled(opened: OpenedDatabase): Promise<void> {
  if (!signals.received) return;
  await opened.close();
  process.exit(signals.exitCode());
}

/** The embedded database: opened, migrated, and on its first start filled with the demo network. */
async function prepareEmbedded(flags: ServeFlags, logger: Logger): Promise<Served> {
  const opened = await openEmbedded(flags);
  await exitIfSignalled(opened);
  try {
    const result = await migrate(opened.db);
    if (result.applied.length) logger.info({ applied: result.applied }, 'database migrated');
  } catch (err) {
    await opened.close();
    fail(`cannot prepare the database: ${rootCause(err).message}`);
  }
  await exitIfSignalled(opened);
  const state = await inspectDatabase(opened.db);
  let line = `${opened.where}: existing data reused`;
  let demo = state.demo;
  if (demo) {
    line += ` (${demoLine(demo)})`;
  } else if (ownsData(state)) {
    line = await seedFirstStart(opened);
    demo = await readDemoInfo(opened.db);
  }
  await exitIfSignalled(opened);
  return { ...opened, line, demo };
}

/** `--migrate`: creates the schema in an empty external database before serving it. */
async function migrateExternal(config: Config, logger: Logger): Promise<void> {
  const admin = await openAdminPostgres(config, config.databaseUrl);
  try {
    const result = await migrate(admin.db);
    if (result.foreignSchema) logger.info('the database holds a schema made by its importer; not migrated');
    else if (result.applied.length) logger.info({ applied: result.applied }, 'database migrated');
  } catch (err) {
    await admin.close();
    fail(`cannot migrate ${admin.where}: ${rootCause(err).message}`);
  }
  await admin.close();
}

/**
 * A database that was down at start: its layout is read once it answers, and the statements take
 * their shapes from it. The sessions' plan mode is a connection setting of the pool, fixed at start
 * (generic plans, v1's); on a v2 or Citus layout that asks for a restart, said in one warning.
 */
function learnLayoutLater(config: Config, options: PostgresOptions, db: Db, watch: DatabaseWatch, logger: Logger): void {
  const timer = setInterval(() => {
    if (!watch.status.started) return;
    clearInterval(timer);
    probeLayout(config, options)
      .then((layout) => {
        setDbLayout(db, layout);
        const line = `layout found once the database answered: ${describeLayout(layout)}`;
        if (planCacheModeFor(layout) === 'force_generic_plan') logger.info({ layout }, line);
        else logger.warn({ layout }, `${line}; its sessions still force generic plans: restart the service to plan with plan_cache_mode ${planCacheModeFor(layout)}`);
      })
      .catch(() => logger.warn('layout of the database not read (it failed again): v1 statement shapes until a restart'));
  }, 1000);
  timer.unref();
}

/** How long the start waits for the first check of an external database before it listens anyway. */
const FIRST_CHECK_WAIT_MS = 5_000;

/**
 * An external PostgreSQL, served as it is. One that is down or lacks the schema does not stop the
 * start: a watch checks it again with backoff, logging each change of state in one line, while
 * readiness and the requests answer 503 (src/db/watch.ts).
 */
async function prepareExternal(config: Config, logger: Logger): Promise<Served> {
  const target = describeTarget(config);
  const where = `PostgreSQL ${target.display}`;
  const options = { ...postgresOptionsFromConfig(config), readOnly: true };
  // the layout decides the plan mode and the statements' shapes (src/db/layout.ts)
  const layout = await probeLayout(config, options).catch(() => undefined);
  if (layout) logger.info({ layout }, `database layout: ${describeLayout(layout)}; plan_cache_mode ${planCacheModeFor(layout)}`);
  const db: Db = openServingDb(config, { ...options, ...(layout ? { planCacheMode: planCacheModeFor(layout) } : {}) }, logger);
  if (layout) setDbLayout(db, layout);
  const watch = watchDatabase(db, { logger, describe: (err) => describeDbError(err, target) });
  await watch.firstCheck(FIRST_CHECK_WAIT_MS);
  if (!layout) learnLayoutLater(config, options, db, watch, logger);
  let demo: DemoInfo | null = null;
  if (watch.status.started) demo = await readDemoInfo(db).catch(() => null);
  const line = demo ? `${where} (${demoLine(demo)})` : watch.status.started ? where : `${where} (not ready: requests answer 503 until it is; see the log)`;
  const close = async () => {
    watch.stop();
    await db.close();
  };
  return { db, where, close, line, demo };
}

function banner(base: string, served: Served, workers: number, live: boolean): string {
  const lines = [`contract-query-service listening on ${base}`, `  database: ${served.line}`];
  if (live) {
    lines.push(
      '  live: a new block every 2 s, stamped now; watch its logs arrive:',
      `    curl -N -H 'Accept: text/event-stream' ${base}/api/v1/contracts/results/logs`,
    );
  }
  if (workers > 1) lines.push(`  workers: ${workers} processes`);
  const examples = served.demo ? demoExamples(served.demo.facts) : [];
  if (examples.length) {
    lines.push('  try:');
    for (const example of examples) lines.push(`    ${example.title}`, `      ${base}${example.path}`);
  }
  lines.push('  stop with Ctrl-C');
  return `${lines.join('\n')}\n`;
}

/**
 * `serve`: the HTTP API on the embedded database (default) or on the configured PostgreSQL, in one
 * process or, with --workers N (PostgreSQL only), in N processes sharing the port.
 */
export async function runServe(config: Config, flags: ServeFlags): Promise<void> {
  // Asynchronous, buffered writes: lines go out together once 4 KiB have gathered, and at the latest
  // a quarter of a second after they were logged, instead of a write(2) per request line; pino
  // flushes what is left when the process exits.
  const logger = pino({ level: config.log.level }, pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS }));
  if (flags.live && config.externalDatabase) {
    fail('--live extends the embedded demo network; to write live blocks into PostgreSQL use: seed --live --database-url URL', 2);
  }
  if (flags.workers > 1 && !config.externalDatabase) {
    fail('--workers needs PostgreSQL (DATABASE_URL): the embedded database lives inside one process', 2);
  }
  if (isPrimary()) {
    try {
      await checkPortFree(config.port, flags.host);
    } catch (err) {
      fail((err as Error).message);
    }
    if (config.externalDatabase && flags.migrate) await migrateExternal(config, logger);
    if (flags.workers > 1) return runPrimary(flags.workers, logger);
  }
  signals.install({ repeatExits: isPrimary() });
  const served = config.externalDatabase ? await prepareExternal(config, logger) : await prepareEmbedded(flags, logger);

  const app = createApp(config, served.db, logger);
  try {
    await app.listen({ port: config.port, host: flags.host, listenTextResolver: (address) => `listening on ${address}` });
  } catch (err) {
    await served.close();
    fail(portMessage(err as NodeJS.ErrnoException, config.port, flags.host));
  }
  const port = (app.server.address() as AddressInfo).port;
  // the start-up's log lines come before the banner, not up to LOG_FLUSH_MS after it
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  if (workerNumber() === 1) process.stdout.write(banner(`http://localhost:${port}`, served, flags.workers, flags.live));
  const writer = flags.live ? startLiveWriter(served.db, LIVE_BLOCK_MS, (err) => logger.warn({ err }, 'live demo: a block was not written')) : undefined;

  const drain = drainOf(app);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.server.shutdownGraceMs;
    logger.info({ signal, graceMs }, 'shutting down: no new connections, finishing the requests in flight');
    // a backstop: the drain ends by itself at the grace; closing must not hang past it
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, graceMs + SHUTDOWN_BACKSTOP_MS).unref();
    await writer?.stop();
    // the requests in flight finish (or are cut at the grace) before the pool goes
    const report = await drain.drain(graceMs);
    await app.close();
    // a pool whose network is cut never hears its connections close: bounded
    const databaseClosed = await Promise.race([served.close().then(() => true), sleep(DATABASE_CLOSE_MS, false)]);
    logger.info({ ...report, databaseClosed }, 'stopped');
    process.exit(report.cut > 0 ? 1 : 0);
  };
  signals.onSignal = (signal) => void shutdown(signal);
  if (signals.received) void shutdown(signals.received);
}
