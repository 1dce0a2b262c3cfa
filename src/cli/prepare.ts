/**
 * The databases `serve` serves, made ready: the embedded one (migrated; on its first start filled
 * with the demo network), or an external PostgreSQL (its layout detected, watched while it is down).
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { type Db, rootCause } from '../db/db.ts';
import { describeLayout, planCacheModeFor, probeLayout, setDbLayout } from '../db/layout.ts';
import { migrate } from '../db/migrate.ts';
import { type PostgresOptions, postgresOptionsFromConfig } from '../db/postgres.ts';
import { openServingDb } from '../db/replicasOpen.ts';
import { type DatabaseWatch, watchDatabase } from '../db/watch.ts';
import { demoLine } from '../demo/examples.ts';
import { DAYS } from '../demo/network.ts';
import { type DemoInfo, SeedInterrupted, inspectDatabase, ownsData, readDemoInfo, seedDemo } from '../demo/seed.ts';
import { type OpenedDatabase, openAdminPostgres, openEmbedded } from './database.ts';
import { fail, formatCount, signals, status } from './output.ts';
import { ProgressBar } from './progress.ts';
import { describeDbError, describeTarget } from './startup.ts';

/** A database ready to serve, and the line the banner says about it. */
export interface Served extends OpenedDatabase {
  line: string;
  demo: DemoInfo | null;
}

/** First start of an embedded database: the demo network, in one transaction, interruptible between statements. */
async function seedFirstStart(opened: OpenedDatabase, seed: number | undefined): Promise<string> {
  const progress = process.stderr.isTTY ? new ProgressBar(process.stderr, 'Creating the demo network') : null;
  if (!progress) status('Creating the demo network...');
  try {
    const report = await seedDemo(opened.db, {
      scale: 1,
      ...(seed !== undefined ? { seed } : {}),
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

/**
 * The embedded database: opened, migrated, and on its first start filled with the demo network (of
 * `seed`), or copied from `flags.template` (DATA_TEMPLATE: the default demo network, packed) where
 * the default network is asked for.
 */
export async function prepareEmbedded(flags: { dataDir: string; memory: boolean; template?: string | undefined }, logger: Logger, seed?: number): Promise<Served> {
  const onExit = (err: Error) => logger.error({ err }, 'the embedded database stopped: every statement fails (503) until a restart');
  const opened = await openEmbedded({ dataDir: flags.dataDir, memory: flags.memory, template: seed === undefined ? flags.template : undefined, onExit });
  await exitIfSignalled(opened);
  try {
    const migrating = performance.now();
    const result = await migrate(opened.db);
    if (result.applied.length) logger.info({ applied: result.applied, ms: Math.round(performance.now() - migrating) }, 'database migrated');
  } catch (err) {
    await opened.close();
    fail(`cannot prepare the database: ${rootCause(err).message}`);
  }
  await exitIfSignalled(opened);
  const state = await inspectDatabase(opened.db);
  const template = opened.firstStart?.template;
  let line = template ? `${opened.where}: copied from ${template}` : `${opened.where}: existing data reused`;
  let demo = state.demo;
  if (demo) {
    line += ` (${demoLine(demo)})`;
  } else if (ownsData(state)) {
    line = await seedFirstStart(opened, seed);
    demo = await readDemoInfo(opened.db);
  }
  await exitIfSignalled(opened);
  return { ...opened, line, demo };
}

/** `--migrate`: creates the schema in an empty external database before serving it. */
export async function migrateExternal(config: Config, logger: Logger): Promise<void> {
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
export async function prepareExternal(config: Config, logger: Logger): Promise<Served> {
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
