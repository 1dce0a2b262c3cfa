/** Replays one spec file against the service on a database: setup rows, then every case of every run. */
import { relative } from 'node:path';
import { defaultTree, loadConfig } from '../../src/config/config.ts';
import type { Db } from '../../src/db/db.ts';
import { appOn, get } from '../support/app.ts';
import { cacheRedisUrl, cachedApps } from './cached.ts';
import { compareResponse } from './compare.ts';
import { clearTables, loadSetup } from './loader.ts';
import { readSpecFile } from './specFile.ts';

/** The reference reads response.limit.default once at start-up, so a spec's override of it has no effect. */
function specConfig(overrides: Record<string, unknown>) {
  const config = loadConfig({}, '/nonexistent', overrides);
  config.response.limit.default = (defaultTree().response as { limit: { default: number } }).limit.default;
  return config;
}

const executor = (db: Db) => ({
  query: async (text: string, values?: unknown[]) => ({ rows: await db.query<Record<string, unknown>>(text, values ?? []) }),
});

export interface Tally {
  passed: number;
  failed: number;
}

/**
 * setup.features.fakeTime (epoch seconds, or a date-time): the server's clock starts at that
 * instant and advances in real time; undefined when the spec does not set one.
 */
export function fakeClock(setup: Record<string, unknown>): (() => bigint) | undefined {
  const fakeTime = (setup.features as { fakeTime?: number | string } | undefined)?.fakeTime;
  if (fakeTime === undefined) return undefined;
  const startMs = typeof fakeTime === 'number' ? fakeTime * 1000 : Date.parse(fakeTime);
  if (Number.isNaN(startMs)) throw new Error(`setup.features.fakeTime is not a time: ${JSON.stringify(fakeTime)}`);
  const realStart = Date.now();
  return () => BigInt(startMs + (Date.now() - realStart)) * 1_000_000n;
}

/** Runs `file` (its headers looked up from its folder up to `root`), adding to `tally` and printing each failure. */
export async function runFile(db: Db, file: string, root: string, tally: Tally): Promise<void> {
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
  const clock = fakeClock(spec.setup);
  const redisUrl = cacheRedisUrl();
  for (const run of spec.runs) {
    const config = specConfig(run.config);
    const cached = redisUrl ? await cachedApps(db, config, clock, redisUrl) : undefined;
    const app = cached?.first ?? appOn(db, { config, ...(clock ? { clock } : {}) });
    for (const testCase of run.cases) {
      const response = cached ? await app.inject({ method: 'GET', url: testCase.url, headers: { 'x-request-id': 'conformance' } }) : await get(app, testCase.url);
      const problems = compareResponse(
        { status: response.statusCode, headers: response.headers, body: response.body },
        { status: testCase.status, body: testCase.body, headers: spec.headers },
      );
      if (cached) problems.push(...(await cached.replay(testCase.url, response)));
      if (problems.length === 0) {
        tally.passed++;
      } else {
        tally.failed++;
        process.stdout.write(`FAIL ${name}${run.label ? ` [${run.label}]` : ''}\n  GET ${testCase.url}\n  ${problems.join('\n  ').replaceAll('\n', '\n  ')}\n`);
      }
    }
    if (cached) {
      const problems = await cached.finish();
      if (problems.length > 0) {
        tally.failed++;
        process.stdout.write(`FAIL ${name}${run.label ? ` [${run.label}]` : ''}: response cache\n  ${problems.join('\n  ')}\n`);
      }
    } else {
      await app.close();
    }
  }
}
