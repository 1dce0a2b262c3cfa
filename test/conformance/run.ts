/**
 * Conformance runner: replays the reference's spec files against this service.
 *   npm run conformance -- [spec files or folders ...]
 * Default: every folder under ../shared/conformance/specs. Runs on an embedded database, or on
 * TEST_DATABASE_URL's server (in a scratch database) when that is set. Ends with "N passed, N failed".
 * A path that does not exist or holds no spec file stops the run before anything is replayed (exit 2).
 * With CONFORMANCE_CACHE_REDIS=redis://host:port/db the response cache is on (see cached.ts): each
 * case is also replayed from the in-process tier and from Redis, and must come back byte for byte.
 * With TEST_REPLICA_URL (a streaming replica of TEST_DATABASE_URL's server) it runs on PostgreSQL
 * alone, each spec's setup written on the primary and every request read from the replica
 * (test/support/replicaReads.ts); a read that ran on the primary counts as a failure.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findSpecFiles } from './specFile.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_SPECS = join(REPO, '..', 'shared', 'conformance', 'specs');

interface SpecSet {
  /** Where responseHeaders.json files are looked up to. */
  root: string;
  files: string[];
}

/** The spec files of every path, or the reasons why some path gives none. */
function collectSpecs(paths: string[]): { sets: SpecSet[]; problems: string[] } {
  const sets: SpecSet[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    if (!existsSync(path)) {
      problems.push(`no such spec file or folder: ${path}`);
      continue;
    }
    const files = findSpecFiles([path]);
    if (files.length === 0) {
      problems.push(`no spec files (*.json) in ${path}`);
      continue;
    }
    sets.push({ root: statSync(path).isDirectory() ? resolve(path) : dirname(resolve(path)), files });
  }
  return { sets, problems };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const { sets, problems } = collectSpecs(args.length > 0 ? args : [DEFAULT_SPECS]);
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`conformance: ${problem}\n`);
    process.exit(2);
  }
  // loaded only now: a wrong path is reported without loading the service or starting a database
  const { openTestDatabase, testBackends } = await import('../support/database.ts');
  const { runFile } = await import('./replay.ts');
  const total = { passed: 0, failed: 0 };
  for (const backend of testBackends()) {
    const database = await openTestDatabase(backend);
    const tally = { passed: 0, failed: 0 };
    try {
      for (const set of sets) for (const file of set.files) await runFile(database.db, file, set.root, tally, database.reads);
      if (database.reads) {
        // every read must have come from the replica: one from the primary means it was out of the rotation
        const by = database.reads.db.readsBy();
        process.stdout.write(`reads: ${JSON.stringify(by)}\n`);
        if ((by.primary ?? 0) > 0) {
          process.stdout.write(`FAIL reads on the primary: ${by.primary} statements did not run on the replica\n`);
          tally.failed++;
        }
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
