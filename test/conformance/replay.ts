/**
 * Replays spec files against the service on a database: setup rows, then every case of every run.
 * runFile compares the answers with the spec; replaySpec yields them for other checks (test/docs).
 */
import { relative } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { defaultTree, loadConfig } from '../../src/config/config.ts';
import type { Db } from '../../src/db/db.ts';
import type { ReplicaReads } from '../support/replicaReads.ts';
import { appOn, get } from '../support/app.ts';
import { createEmbeddedDb } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { compareResponse } from './compare.ts';
import { clearTables, loadSetup } from './loader.ts';
import { forgetFacts } from '../../src/db/facts.ts';
import { cacheRedisUrl, cachedApps } from './cached.ts';
import { type SpecCase, type SpecFile, readSpecFile } from './specFile.ts';

/** The reference reads response.limit.default once at start-up, so a spec's override of it has no effect. */
function specConfig(overrides: Record<string, unknown>) {
  // load shedding on event-loop delay off: a loaded machine must not turn an answer into a 503
  const config = loadConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_MAXEVENTLOOPDELAY: '0' }, '/nonexistent', overrides);
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

/** CONFORMANCE_NETWORKS set: every case is answered by the testnet network of a two-network server. */
const networksMode = () => process.env.CONFORMANCE_NETWORKS === '1';

let other: Promise<Db> | undefined;
/** The other network's database: the demo network at a small scale, embedded, made once per process. */
function otherNetwork(): Promise<Db> {
  other ??= (async () => {
    const { db } = await createEmbeddedDb();
    await migrate(db);
    await seedDemo(db, { scale: 0.05, seed: 4242 });
    return db;
  })();
  return other;
}

/** A spec's setup that could not be loaded: none of its `cases` ran. */
export class SetupFailed extends Error {
  constructor(readonly cases: number, cause: unknown) {
    super(`setup could not be loaded: ${(cause as Error).message}`, { cause });
  }
}

/** One case replayed: the service's answer, and the pattern of the route that gave it (undefined: no route, e.g. the 404 handler). */
export interface ReplayedCase {
  label: string;
  testCase: SpecCase;
  response: LightMyRequestResponse;
  route: string | undefined;
  /** With the response cache on: how its replays of this answer differed from it. */
  cacheProblems: string[];
}

/** With the response cache on, what it got wrong over a whole run (told once per run). */
export type RunEndListener = (label: string, cacheProblems: string[]) => void;

/**
 * Loads the spec's setup into `db`, then sends every case of every run to an app on it, yielding
 * each answer. Throws SetupFailed when the setup cannot be loaded.
 */
export async function* replaySpec(
  db: Db,
  spec: SpecFile,
  redisUrl?: string,
  onRunEnd?: RunEndListener,
  reads?: ReplicaReads,
): AsyncGenerator<ReplayedCase> {
  await clearTables(executor(db));
  try {
    await loadSetup(executor(db), spec.setup);
  } catch (err) {
    throw new SetupFailed(
      spec.runs.reduce((n, run) => n + run.cases.length, 0),
      err,
    );
  }
  // with a replica (TEST_REPLICA_URL), the app reads there once it holds the setup
  await reads?.settle();
  const served = reads?.db ?? db;
  // a history rewritten under the process: what it kept of the last spec's is wrong now (src/db/facts.ts)
  forgetFacts(db);
  forgetFacts(served);
  const clock = fakeClock(spec.setup);
  for (const run of spec.runs) {
    const config = specConfig(run.config);
    // with a Redis, every answer is also replayed from the cache's two tiers (cached.ts)
    const cached = redisUrl ? await cachedApps(served, config, clock, redisUrl) : undefined;
    // CONFORMANCE_NETWORKS: the spec's data is testnet's of a two-network server whose default
    // network (previewnet) holds a demo network: an answer from the wrong database would differ
    const other = networksMode() ? await otherNetwork() : undefined;
    const networks = other ? { networks: [{ name: 'testnet', config, db: served }, { name: 'previewnet', config, db: other }], defaultNetwork: 'previewnet' } : {};
    const app = cached?.first ?? appOn(served, { config, ...(clock ? { clock } : {}), ...networks });
    let route: string | undefined;
    // the cached apps are started already (no hook can be added): their cases carry no route
    if (!cached) {
      app.addHook('onRequest', async (request) => {
        route = request.routeOptions.url;
      });
    }
    try {
      for (const testCase of run.cases) {
        route = undefined;
        const response = cached
          ? await app.inject({ method: 'GET', url: testCase.url, headers: { 'x-request-id': 'conformance' } })
          : await get(app, testCase.url, other ? { host: 'testnet.mirror.example' } : undefined);
        const cacheProblems = cached ? await cached.replay(testCase.url, response) : [];
        yield { label: run.label, testCase, response, route, cacheProblems };
      }
    } finally {
      if (cached) onRunEnd?.(run.label, await cached.finish());
      else await app.close();
    }
  }
}

/** How an answer differs from its case (none: it passed). */
export function caseProblems(response: LightMyRequestResponse, testCase: SpecCase, spec: SpecFile): string[] {
  return compareResponse(
    { status: response.statusCode, headers: response.headers, body: response.body },
    { status: testCase.status, body: testCase.body, headers: spec.headers },
  );
}

/** Runs `file` (its headers looked up from its folder up to `root`), adding to `tally` and printing each failure. */
export async function runFile(db: Db, file: string, root: string, tally: Tally, reads?: ReplicaReads): Promise<void> {
  const spec = readSpecFile(file, root);
  const name = relative(process.cwd(), file);
  try {
    const onRunEnd: RunEndListener = (label, problems) => {
      if (problems.length === 0) return;
      tally.failed++;
      process.stdout.write(`FAIL ${name}${label ? ` [${label}]` : ''}: response cache\n  ${problems.join('\n  ')}\n`);
    };
    for await (const { label, testCase, response, cacheProblems } of replaySpec(db, spec, cacheRedisUrl(), onRunEnd, reads)) {
      const problems = [...caseProblems(response, testCase, spec), ...cacheProblems];
      if (problems.length === 0) {
        tally.passed++;
      } else {
        tally.failed++;
        process.stdout.write(`FAIL ${name}${label ? ` [${label}]` : ''}\n  GET ${testCase.url}\n  ${problems.join('\n  ').replaceAll('\n', '\n  ')}\n`);
      }
    }
  } catch (err) {
    if (!(err instanceof SetupFailed)) throw err;
    tally.failed += err.cases;
    process.stdout.write(`FAIL ${name}: ${err.message}\n`);
  }
}
