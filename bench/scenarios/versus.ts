/**
 * Per-URL comparison with the reference: every URL is asked of both servers one at a time, warm (one
 * request to each first), then three times each, alternating; each side's median is kept. Lists every
 * URL where this service (B) is over `--ratio` times and over `--margin` ms slower than the reference (A),
 * and a summary by kind of search.
 *
 * With `--cut-reference MS` (for the schema as the importer leaves it, where the reference takes up to
 * its 15 s statement timeout on some searches and a whole run would take hours): this service's runs
 * come first, and a run of the reference is stopped once it has taken both MS and the time from which
 * the URL can no longer be listed (min(B / ratio, B - margin) for B this service's median): its
 * statement is cancelled in the database (`pg_cancel_backend` of the reference's active sessions,
 * user `--reference-user`) and the run counts as that time, a lower bound. The verdict is the same as
 * with the whole run (a URL is listed only when the reference's median is below that time, and a cut
 * run is above it); the reference's figures are then lower bounds, and its status is that of a run
 * that finished (none when every run was cut).
 *
 *   npm run bench -- versus --a http://127.0.0.1:5552 --b http://127.0.0.1:5551 \
 *     --database-url postgres://postgres@127.0.0.1:5432/mirror_node --count 5000 --seed 1 [--json FILE]
 *   npm run bench -- versus --a ... --b ... --urls FILE        (one path per line)
 *
 * URLs come from bench/plans/searches.ts (long-range topic and sender searches, network-wide and per
 * contract, every topic combination, values of every selectivity) or from a file. Exit status 1 when a
 * URL is slower beyond the limits, or when the two servers answer a URL with different statuses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import type { Fail } from '../lib/cli.ts';
import { type Search, generateSearches, samplePools } from '../plans/searches.ts';
import { requireServer } from '../lib/server.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { DATABASE_URL } from '../lib/options.ts';

const USAGE = `  --a URL              the reference (required)
  --b URL              this service (required)
  --database-url URL   sample the URLs from this database (bench/plans/searches.ts), with --count and --seed
  --count N            URLs to sample                                                  (default 5000)
  --seed S             sampling seed                                                      (default 1)
  --urls FILE          the URLs from a file instead (one path per line)
  --ratio R            listed when this service is over R times slower ...            (default 1.5)
  --margin MS          ... and over MS ms slower                                         (default 10)
  --timeout S          per-request timeout                                               (default 60)
  --json FILE          write every row as JSON
  --write-urls FILE    write the URLs asked (with their kind)
  --cut-reference MS   stop a reference run past MS and the time that decides (needs --database-url)
  --reference-user U   the reference's database user, whose statements are cancelled (default mirror_api)`;

const OPTIONS = {
  a: { type: 'string' },
  b: { type: 'string' },
  ...DATABASE_URL,
  count: { type: 'string', default: '5000' },
  seed: { type: 'string', default: '1' },
  urls: { type: 'string' },
  ratio: { type: 'string', default: '1.5' },
  margin: { type: 'string', default: '10' },
  timeout: { type: 'string', default: '60' },
  json: { type: 'string' },
  'write-urls': { type: 'string' },
  'cut-reference': { type: 'string' },
  'reference-user': { type: 'string', default: 'mirror_api' },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  if (!values.a || !values.b) fail('--a and --b are required');
  await requireServer('a', values.a!);
  await requireServer('b', values.b!);
  const ratio = Number(values.ratio);
  const margin = Number(values.margin);
  const timeoutMs = Number(values.timeout) * 1000;
  const cutFloorMs = values['cut-reference'] === undefined ? undefined : Number(values['cut-reference']);
  if (cutFloorMs !== undefined && !(cutFloorMs >= 0)) fail('--cut-reference must be a number of ms of at least 0');
  if (cutFloorMs !== undefined && !values['database-url']) fail('--cut-reference needs --database-url (to cancel the statements of the runs it stops)');

  let searches: Search[];
  if (values.urls) {
    searches = readFileSync(values.urls, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => {
        const [path, ...kind] = l.split('\t');
        return { path: path!, kind: kind.join(' ') || 'from file' };
      });
  } else {
    if (!values['database-url']) fail('give --database-url to generate URLs, or --urls');
    const client = new pg.Client({ connectionString: values['database-url'] });
    await client.connect();
    const pools = await samplePools(client, Number(values.seed));
    await client.end();
    searches = generateSearches(pools, Number(values.count), Number(values.seed));
  }
  if (values['write-urls']) writeFileSync(values['write-urls'], searches.map((s) => `${s.path}\t${s.kind}`).join('\n') + '\n');

  /** One run; `cutMs`: stop it after that long (the reference's statement is cancelled) and count it as cut. */
  async function timed(base: string, path: string, cutMs?: number): Promise<{ ms: number; status: number; cut: boolean }> {
    const started = performance.now();
    // a timer of our own, not AbortSignal.timeout/any: a composite signal can be collected before it fires
    // (a run of 5,000 URLs once waited forever on one request)
    const controller = new AbortController();
    let cut = false;
    const timer = setTimeout(() => controller.abort(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs);
    const cutTimer = cutMs === undefined ? undefined : setTimeout(() => ((cut = true), controller.abort()), Math.ceil(cutMs));
    try {
      const res = await fetch(base + path, { signal: controller.signal });
      await res.arrayBuffer();
      return { ms: performance.now() - started, status: res.status, cut: false };
    } catch (err) {
      if (!cut) throw err;
      const ms = performance.now() - started;
      await cancelReference();
      return { ms, status: 0, cut: true };
    } finally {
      clearTimeout(timer);
      clearTimeout(cutTimer);
    }
  }

  // the reference's statements left running by a cut run: cancelled, and waited for, so that runs stay one at a time
  const admin = cutFloorMs === undefined ? undefined : new pg.Client({ connectionString: values['database-url'] });
  await admin?.connect();
  async function cancelReference(): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const { rows } = await admin!.query<{ n: number }>(
        `select count(pg_cancel_backend(pid))::int as n from pg_stat_activity
        where usename = $1 and state = 'active' and pid <> pg_backend_pid()`,
        [values['reference-user']],
      );
      if (rows[0]!.n === 0) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`the reference's statements (user ${values['reference-user']}) did not end after cancelling for 5 s`);
  }

  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1]!;

  interface Row {
    path: string;
    kind: string;
    statusA: number;
    statusB: number;
    a: number;
    b: number;
    /** Runs of the reference stopped (--cut-reference): `a` is then a lower bound where two or three were. */
    aCut?: number;
  }

  /** Whole runs, alternating: warm each, then three each. */
  async function measureBoth(path: string): Promise<Omit<Row, 'path' | 'kind'>> {
    const warmA = await timed(values.a!, path);
    const warmB = await timed(values.b!, path);
    const a: number[] = [];
    const b: number[] = [];
    for (let run = 0; run < 3; run++) {
      a.push((await timed(values.a!, path)).ms);
      b.push((await timed(values.b!, path)).ms);
    }
    return { statusA: warmA.status, statusB: warmB.status, a: median(a), b: median(b) };
  }

  /** This service first; then the reference, each run stopped once it can no longer change the verdict. */
  async function measureCut(path: string): Promise<Omit<Row, 'path' | 'kind'>> {
    const warmB = await timed(values.b!, path);
    const b: number[] = [];
    for (let run = 0; run < 3; run++) b.push((await timed(values.b!, path)).ms);
    const mb = median(b);
    const cutMs = Math.max(cutFloorMs!, Math.min(mb / ratio, mb - margin));
    const warmA = await timed(values.a!, path, cutMs);
    const a = [];
    for (let run = 0; run < 3; run++) a.push(await timed(values.a!, path, cutMs));
    const finished = [warmA, ...a].find((r) => !r.cut);
    return { statusA: finished?.status ?? 0, statusB: warmB.status, a: median(a.map((r) => r.ms)), b: mb, aCut: a.filter((r) => r.cut).length };
  }

  /** Over the ratio and the margin slower than the reference. */
  const isSlower = (r: Row) => r.b > ratio * r.a && r.b - r.a > margin;
  /** False when every run of the reference was cut: its status is not known. */
  const statusKnown = (r: Row) => r.statusA !== 0 || !r.aCut;

  const rows: Row[] = [];
  const started = Date.now();
  for (const [i, search] of searches.entries()) {
    let row: Row;
    try {
      row = { ...search, ...(await (cutFloorMs === undefined ? measureBoth(search.path) : measureCut(search.path))) };
    } catch (err) {
      row = { ...search, statusA: 0, statusB: 0, a: NaN, b: NaN };
      process.stdout.write(`error on ${search.path}: ${(err as Error).message}\n`);
    }
    rows.push(row);
    const slow = isSlower(row);
    if (slow || (statusKnown(row) && row.statusA !== row.statusB)) {
      process.stdout.write(`${slow ? 'SLOWER' : 'STATUS'} ${row.statusA}/${row.statusB} reference ${row.a.toFixed(1)} ms, this ${row.b.toFixed(1)} ms  ${row.kind}\n  ${row.path}\n`);
    }
    if ((i + 1) % 250 === 0) process.stdout.write(`  ${i + 1}/${searches.length} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  await admin?.end();

  const slower = rows.filter(isSlower);
  const statusDiffers = rows.filter((r) => statusKnown(r) && r.statusA !== r.statusB && !(r.statusA >= 500 && r.statusB === 400));
  const cutRows = rows.filter((r) => (r.aCut ?? 0) > 0);
  const byKind = new Map<string, Row[]>();
  for (const r of rows) {
    const kind = r.kind.split(',')[0]!;
    byKind.set(kind, [...(byKind.get(kind) ?? []), r]);
  }
  const q = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  process.stdout.write(`\n${rows.length} URLs in ${((Date.now() - started) / 1000).toFixed(0)} s; ${values.a} (reference) and ${values.b} (this service)\n`);
  process.stdout.write(`kind\tURLs\treference p50/p99/max ms${cutFloorMs === undefined ? '' : ' (cut runs: lower bounds)'}\tthis p50/p99/max ms\tmedian ratio this/reference\n`);
  for (const [kind, rs] of [...byKind.entries()].sort()) {
    const a = rs.map((r) => r.a).filter(Number.isFinite);
    const b = rs.map((r) => r.b).filter(Number.isFinite);
    const ratios = rs.filter((r) => r.a > 0).map((r) => r.b / r.a);
    process.stdout.write(
      `${kind}\t${rs.length}\t${q(a, 0.5).toFixed(1)}/${q(a, 0.99).toFixed(1)}/${Math.max(...a).toFixed(1)}\t${q(b, 0.5).toFixed(1)}/${q(b, 0.99).toFixed(1)}/${Math.max(...b).toFixed(1)}\t${q(ratios, 0.5).toFixed(2)}\n`,
    );
  }
  if (cutFloorMs !== undefined) {
    const lowerBound = cutRows.filter((r) => r.aCut! >= 2).length;
    process.stdout.write(
      `\nreference runs cut (--cut-reference ${cutFloorMs}): ${cutRows.length} URLs had a run stopped, ${lowerBound} of them two or three (their reference median is a lower bound; ${cutRows.filter((r) => r.statusA === 0).length} with no run finished, so no status)\n`,
    );
  }
  process.stdout.write(`\n${slower.length} URLs over ${ratio}x and ${margin} ms slower than the reference; ${statusDiffers.length} with another status\n`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ a: values.a, b: values.b, ratio, margin, cutReferenceMs: cutFloorMs ?? null, rows }, null, 1));
  process.exit(slower.length > 0 || statusDiffers.length > 0 ? 1 : 0);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
