/**
 * Conformance runner: replays the reference's spec files against this service.
 *   npm run conformance -- [spec files or folders ...]
 * Default: every folder under ../shared/conformance/specs. Runs on an embedded database, or on
 * TEST_DATABASE_URL's server (in a scratch database) when that is set. Ends with "N passed, N failed".
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/app.ts';
import { defaultTree, loadConfig } from '../../src/config/config.ts';
import type { Db } from '../../src/db/db.ts';
import { openTestDatabase, testBackends } from '../support/database.ts';
import { compareResponse } from './compare.ts';
import { clearTables, loadSetup } from './loader.ts';
import { findSpecFiles, readSpecFile } from './specFile.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_SPECS = join(REPO, '..', 'shared', 'conformance', 'specs');

/** The reference reads response.limit.default once at start-up, so a spec's override of it has no effect. */
function specConfig(overrides: Record<string, unknown>) {
  const config = loadConfig({}, '/nonexistent', overrides);
  config.response.limit.default = (defaultTree().response as { limit: { default: number } }).limit.default;
  return config;
}

const executor = (db: Db) => ({
  query: async (text: string, values?: unknown[]) => ({ rows: await db.query<Record<string, unknown>>(text, values ?? []) }),
});

interface Tally {
  passed: number;
  failed: number;
}

async function runFile(db: Db, file: string, root: string, tally: Tally): Promise<void> {
  const spec = readSpecFile(file, root);
  const name = relative(process.cwd(), file);
  await clearTables(executor(db));
  try {
    await loadSetup(executor(db), spec.setup);
  } catch (err) {
    const count = spec.runs.reduce((n, run) => n + run.cases.length, 0);
    tally.failed += count;
    process.stdout.write(`FAIL ${name}: setup could not be loaded: ${(err as Error).message}\n`);
    return;
  }
  for (const run of spec.runs) {
    const app = createApp(specConfig(run.config), db);
    for (const testCase of run.cases) {
      const response = await app.inject({ method: 'GET', url: testCase.url });
      const problems = compareResponse(
        { status: response.statusCode, headers: response.headers, body: response.body },
        { status: testCase.status, body: testCase.body, headers: spec.headers },
      );
      if (problems.length === 0) {
        tally.passed++;
      } else {
        tally.failed++;
        process.stdout.write(`FAIL ${name}${run.label ? ` [${run.label}]` : ''}\n  GET ${testCase.url}\n  ${problems.join('\n  ').replaceAll('\n', '\n  ')}\n`);
      }
    }
    await app.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const paths = args.length > 0 ? args : [DEFAULT_SPECS];
  for (const path of paths) {
    if (!existsSync(path)) {
      process.stderr.write(`no such spec file or folder: ${path}\n`);
      process.exit(2);
    }
  }
  const total: Tally = { passed: 0, failed: 0 };
  for (const backend of testBackends()) {
    const database = await openTestDatabase(backend);
    const tally: Tally = { passed: 0, failed: 0 };
    try {
      for (const path of paths) {
        const root = statSync(path).isDirectory() ? resolve(path) : dirname(resolve(path));
        for (const file of findSpecFiles([path])) await runFile(database.db, file, root, tally);
      }
    } finally {
      await database.close();
    }
    process.stdout.write(`conformance on ${database.label}: ${tally.passed} passed, ${tally.failed} failed\n`);
    total.passed += tally.passed;
    total.failed += tally.failed;
  }
  process.stdout.write(`${total.passed} passed, ${total.failed} failed\n`);
  process.exitCode = total.failed > 0 ? 1 : 0;
}

await main();
