import type { Config } from '../config/config.ts';
import { rootCause } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { demoLine } from '../demo/examples.ts';
import { WRITTEN_TABLES } from '../demo/generator.ts';
import { DAYS } from '../demo/network.ts';
import { SeedInterrupted, type SeedReport, inspectDatabase, ownsData, seedDemo } from '../demo/seed.ts';
import { type OpenedDatabase, openAdminPostgres, openEmbedded } from './database.ts';
import { fail, formatCount, signals, status } from './output.ts';
import { ProgressBar } from './progress.ts';
import { startLiveWriter } from '../demo/live.ts';

export interface SeedFlags {
  scale: string;
  /** Then keep writing a block every 2 s (src/demo/live.ts). */
  live: boolean;
  force: boolean;
  dataDir: string;
  memory: boolean;
  url: string | undefined;
}

function parseScale(text: string): number {
  const scale = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(scale > 0) || scale > 1000) {
    fail(`--scale must be a number above 0 and at most 1000, got ${JSON.stringify(text)}`, 2);
  }
  return scale;
}

/** Refuses (exit 1) to replace data that the generator did not write, unless --force. */
async function checkOwnership(opened: OpenedDatabase, force: boolean): Promise<void> {
  const state = await inspectDatabase(opened.db);
  if (!ownsData(state) && !force) {
    await opened.close();
    const what = state.tablesWithData.length
      ? `rows in ${state.tablesWithData.slice(0, 5).join(', ')}${state.tablesWithData.length > 5 ? ', ...' : ''}`
      : state.schema === 'foreign'
        ? 'the mirror node schema of another tool, such as its importer, with empty tables'
        : `${state.otherTables} tables of another application`;
    fail(
      `refusing to write into ${opened.where}: it holds data that seed did not create (${what}).\n` +
        `A mirror node database is owned by its importer; seeding would empty and refill ${WRITTEN_TABLES.join(', ')}.\n` +
        `Use an empty database, or add --force to replace that data anyway.`,
    );
  }
  if (state.demo) status(`Replacing the ${demoLine(state.demo)} in ${opened.where}`);
  else if (state.tablesWithData.length) status(`--force: replacing the data of ${WRITTEN_TABLES.join(', ')} in ${opened.where}`);
  try {
    const result = await migrate(opened.db);
    if (result.applied.length) {
      status(state.schema === 'none' ? `Created the mirror node schema in ${opened.where}` : `Applied migrations ${result.applied.join(', ')} to ${opened.where}`);
    }
  } catch (err) {
    await opened.close();
    fail(`cannot create the schema: ${rootCause(err).message}`);
  }
}

function summary(report: SeedReport, where: string, seconds: number): string {
  const width = Math.max(...Object.keys(report.rowCounts).map((t) => t.length), 5);
  const total = Object.values(report.rowCounts).reduce((a, b) => a + b, 0);
  return [
    `Seeded the demo network (scale ${report.scale}, ${DAYS} days) into ${where}:`,
    ...Object.entries(report.rowCounts).map(([table, n]) => `  ${table.padEnd(width)}  ${formatCount(n).padStart(12)}`),
    `  ${'total'.padEnd(width)}  ${formatCount(total).padStart(12)}`,
    `in ${seconds.toFixed(1)} s (generation ${report.seconds.toFixed(1)} s)`,
    '',
  ].join('\n');
}

/**
 * `seed`: the demo network at any scale into PostgreSQL (DATABASE_URL / --database-url), or into the
 * embedded database in --data-dir; batched in one transaction with a progress bar and a summary.
 */
export async function runSeed(config: Config, flags: SeedFlags): Promise<void> {
  const scale = parseScale(flags.scale);
  if (flags.memory) fail('seed writes into a database that outlives it: give --database-url (or DATABASE_URL), or --data-dir', 2);
  signals.install();
  const started = performance.now();
  const url = flags.url ?? config.databaseUrl;
  const external = url !== undefined || config.externalDatabase;
  const opened = external ? await openAdminPostgres(config, url) : await openEmbedded({ dataDir: flags.dataDir, memory: false });
  if (signals.received) {
    await opened.close();
    process.exit(signals.exitCode());
  }
  await checkOwnership(opened, flags.force);

  const progress = new ProgressBar(process.stderr, 'Seeding');
  let report: SeedReport;
  try {
    report = await seedDemo(opened.db, {
      scale,
      onProgress: (done, total, label) => progress.update(done, total, label),
      shouldStop: () => signals.received !== null,
    });
  } catch (err) {
    progress.end();
    await opened.close();
    if (err instanceof SeedInterrupted) {
      status(`${signals.received}: stopped; the seed transaction was rolled back, no demo data was written`);
      process.exit(signals.exitCode());
    }
    fail(`seeding failed, nothing was written: ${(err as Error).message}`);
  }
  progress.end();
  process.stdout.write(summary(report, opened.where, (performance.now() - started) / 1000));
  if (flags.live) {
    // an importer-like writer: a block every 2 s until a signal, then the one being written completes
    status(`writing a new block every 2 s into ${opened.where}; stop with Ctrl-C`);
    const writer = startLiveWriter(opened.db, 2000, (err) => status(`warning: a block was not written: ${(err as Error).message}`));
    await new Promise<void>((resolve) => (signals.onSignal = () => resolve()));
    await writer.stop();
    status(`wrote ${writer.blocks} blocks`);
  }
  await opened.close();
  process.exit(0);
}
