/**
 * Side by side: two `npm run bench -- run --json` reports of the same URL file and levels (this service and
 * the reference, run one after the other), per level: throughput and p99 over all requests, then
 * p50 and p99 of every URL, marking each URL where the first report is slower than the second.
 *
 *   npm run bench -- compare /tmp/ours.json /tmp/reference.json [--names ours,reference] [--markdown]
 *
 * Exit status 0; the count of slower URLs is printed per level (p50 and p99 separately).
 */
import { readFileSync } from 'node:fs';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';

interface Summary {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  status5xx: number;
  errors: number;
}

interface Level {
  connections: number;
  endpoints: Record<string, Summary>;
  urls: Array<Summary & { path: string; endpoint: string }>;
}

interface Report {
  at: string;
  options: { urlFile: string; base: string; mix: string };
  levels: Level[];
}

const read = (file: string): Report => JSON.parse(readFileSync(file, 'utf8')) as Report;
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}x` : '-');

const USAGE = `  A.json B.json        two reports of \`run --json\` over the same URL file and levels
  --names A,B          what to call them                                     (default ours,reference)
  --markdown           print the tables as Markdown`;

const OPTIONS = {
  names: { type: 'string', default: 'ours,reference' },
  markdown: { type: 'boolean', default: false },
} satisfies OptionsConfig;

function main({ values, positionals, fail }: ScenarioArgs<typeof OPTIONS>): void {
  if (positionals.length !== 2) fail(`two reports are needed, got ${positionals.length}`);
  const [a, b] = positionals.map(read) as [Report, Report];
  const [nameA, nameB] = values.names!.split(',') as [string, string];
  const md = values.markdown!;
  const row = (cells: string[]) => (md ? `| ${cells.join(' | ')} |` : cells.join('\t'));
  process.stdout.write(`${nameA}: ${a.options.base} at ${a.at}; ${nameB}: ${b.options.base} at ${b.at}; ${a.options.urlFile} (${a.options.mix})\n`);
  for (const levelA of a.levels) {
    const levelB = b.levels.find((l) => l.connections === levelA.connections);
    if (!levelB) continue;
    const tA = levelA.endpoints.total!;
    const tB = levelB.endpoints.total!;
    process.stdout.write(`\n${levelA.connections} connections: ${nameA} ${tA.rps.toFixed(0)} req/s p50 ${ms(tA.p50)} p99 ${ms(tA.p99)} ms; `);
    process.stdout.write(`${nameB} ${tB.rps.toFixed(0)} req/s p50 ${ms(tB.p50)} p99 ${ms(tB.p99)} ms; `);
    process.stdout.write(`throughput ${ratio(tA.rps, tB.rps)}, p99 ${ratio(tA.p99, tB.p99)}\n`);
    const header = ['url', `${nameA} p50`, `${nameB} p50`, `${nameA} p99`, `${nameB} p99`, 'slower'];
    process.stdout.write(`${row(header)}\n`);
    if (md) process.stdout.write(`${row(header.map(() => '---'))}\n`);
    let slowerP50 = 0;
    let slowerP99 = 0;
    for (const u of levelA.urls) {
      const v = levelB.urls.find((x) => x.path === u.path);
      if (!v) continue;
      const s50 = u.p50 > v.p50;
      const s99 = u.p99 > v.p99;
      if (s50) slowerP50++;
      if (s99) slowerP99++;
      const mark = [s50 ? 'p50' : '', s99 ? 'p99' : ''].filter(Boolean).join(',');
      process.stdout.write(`${row([md ? `\`${u.path}\`` : u.path, ms(u.p50), ms(v.p50), ms(u.p99), ms(v.p99), mark])}\n`);
    }
    process.stdout.write(`${levelA.connections} connections: ${nameA} slower than ${nameB} on ${slowerP50} URLs at p50, ${slowerP99} at p99 (of ${levelA.urls.length})\n`);
  }
}

export default defineScenario({ usage: USAGE, options: OPTIONS, positionals: 'A.json B.json', run: main });
