/**
 * Per-URL comparison with the reference: every URL is asked of both servers one at a time, warm (one
 * request to each first), then three times each, alternating; each side's median is kept. Lists every
 * URL where this service (B) is over `--ratio` times and over `--margin` ms slower than the reference (A),
 * and a summary by kind of search.
 *
 *   npx tsx bench/versus.ts --a http://127.0.0.1:5552 --b http://127.0.0.1:5551 \
 *     --database-url postgres://postgres@127.0.0.1:5432/mirror_node --count 5000 --seed 1 [--json FILE]
 *   npx tsx bench/versus.ts --a ... --b ... --urls FILE        (one path per line)
 *
 * URLs come from bench/plans/searches.ts (long-range topic and sender searches, network-wide and per
 * contract, every topic combination, values of every selectivity) or from a file. Exit status 1 when a
 * URL is slower beyond the limits, or when the two servers answer a URL with different statuses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { usageFailure } from './lib/cli.ts';
import { type Search, generateSearches, samplePools } from './plans/searches.ts';

const USAGE = `usage: npx tsx bench/versus.ts --a REFERENCE --b SERVICE (--database-url URL --count N [--seed S] | --urls FILE)
         [--ratio 1.5] [--margin 10] [--timeout 60] [--json FILE] [--write-urls FILE]`;
const fail = usageFailure(USAGE);
const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    'database-url': { type: 'string' },
    count: { type: 'string', default: '5000' },
    seed: { type: 'string', default: '1' },
    urls: { type: 'string' },
    ratio: { type: 'string', default: '1.5' },
    margin: { type: 'string', default: '10' },
    timeout: { type: 'string', default: '60' },
    json: { type: 'string' },
    'write-urls': { type: 'string' },
  },
});
if (!values.a || !values.b) fail('--a and --b are required');
const ratio = Number(values.ratio);
const margin = Number(values.margin);
const timeoutMs = Number(values.timeout) * 1000;

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

async function timed(base: string, path: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await fetch(base + path, { signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1]!;

interface Row {
  path: string;
  kind: string;
  statusA: number;
  statusB: number;
  a: number;
  b: number;
}

const rows: Row[] = [];
const started = Date.now();
for (const [i, search] of searches.entries()) {
  let row: Row;
  try {
    const warmA = await timed(values.a!, search.path);
    const warmB = await timed(values.b!, search.path);
    const a: number[] = [];
    const b: number[] = [];
    for (let run = 0; run < 3; run++) {
      a.push((await timed(values.a!, search.path)).ms);
      b.push((await timed(values.b!, search.path)).ms);
    }
    row = { ...search, statusA: warmA.status, statusB: warmB.status, a: median(a), b: median(b) };
  } catch (err) {
    row = { ...search, statusA: 0, statusB: 0, a: NaN, b: NaN };
    process.stdout.write(`error on ${search.path}: ${(err as Error).message}\n`);
  }
  rows.push(row);
  const slow = row.b > ratio * row.a && row.b - row.a > margin;
  if (slow || row.statusA !== row.statusB) {
    process.stdout.write(`${slow ? 'SLOWER' : 'STATUS'} ${row.statusA}/${row.statusB} reference ${row.a.toFixed(1)} ms, this ${row.b.toFixed(1)} ms  ${row.kind}\n  ${row.path}\n`);
  }
  if ((i + 1) % 250 === 0) process.stdout.write(`  ${i + 1}/${searches.length} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

const slower = rows.filter((r) => r.b > ratio * r.a && r.b - r.a > margin);
const statusDiffers = rows.filter((r) => r.statusA !== r.statusB && !(r.statusA >= 500 && r.statusB === 400));
const byKind = new Map<string, Row[]>();
for (const r of rows) {
  const kind = r.kind.split(',')[0]!;
  byKind.set(kind, [...(byKind.get(kind) ?? []), r]);
}
const q = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
process.stdout.write(`\n${rows.length} URLs in ${((Date.now() - started) / 1000).toFixed(0)} s; ${values.a} (reference) and ${values.b} (this service)\n`);
process.stdout.write('kind\tURLs\treference p50/p99/max ms\tthis p50/p99/max ms\tmedian ratio this/reference\n');
for (const [kind, rs] of [...byKind.entries()].sort()) {
  const a = rs.map((r) => r.a).filter(Number.isFinite);
  const b = rs.map((r) => r.b).filter(Number.isFinite);
  const ratios = rs.filter((r) => r.a > 0).map((r) => r.b / r.a);
  process.stdout.write(
    `${kind}\t${rs.length}\t${q(a, 0.5).toFixed(1)}/${q(a, 0.99).toFixed(1)}/${Math.max(...a).toFixed(1)}\t${q(b, 0.5).toFixed(1)}/${q(b, 0.99).toFixed(1)}/${Math.max(...b).toFixed(1)}\t${q(ratios, 0.5).toFixed(2)}\n`,
  );
}
process.stdout.write(`\n${slower.length} URLs over ${ratio}x and ${margin} ms slower than the reference; ${statusDiffers.length} with another status\n`);
if (values.json) writeFileSync(values.json, JSON.stringify({ a: values.a, b: values.b, ratio, margin, rows }, null, 1));
process.exit(slower.length > 0 || statusDiffers.length > 0 ? 1 : 0);
