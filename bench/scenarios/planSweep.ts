/**
 * The plan sweep (bench/plans/sweep.ts) on a database:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/mirror_node npm run bench -- plan-sweep \
 *     [--quick] [--no-pages] [--only all-logs,logs] [--json FILE] [--print-urls]
 *
 * Prints every statement whose plan is slow (over 3x and 20 ms slower than the better of a generic and a
 * custom plan), then one summary line per statement of the service (who sends it, its plan, its times),
 * and exits 1 when any was slow.
 */
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import type { Fail } from '../lib/cli.ts';
import { sampleSelectivity } from '../plans/sample.ts';
import { sweepShapes } from '../plans/shapes.ts';
import { runSweep, summarize } from '../plans/sweep.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';

const USAGE = `  --quick              fewer shapes (one value class per filter)
  --no-pages           do not follow each listing's next link
  --only LIST          endpoints to sweep, comma separated (as run --only)
  --json FILE          write the samples and every row as JSON
  --verbose            print every statement run, not only the slow ones
  --print-urls         print the shapes' URLs (tab, filters and classes) and stop
  DATABASE_URL         the database to sweep (required)`;

const OPTIONS = {
  quick: { type: 'boolean', default: false },
  'no-pages': { type: 'boolean', default: false },
  only: { type: 'string' },
  json: { type: 'string' },
  verbose: { type: 'boolean', default: false },
  'print-urls': { type: 'boolean', default: false },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const url = process.env.DATABASE_URL;
  if (!url) fail('set DATABASE_URL to the database to sweep');
  if (values['print-urls']) {
    // the shapes' URLs, one per line with their filters and classes after a tab (for the run and versus scenarios)
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const shapes = sweepShapes(await sampleSelectivity(client), { quick: values.quick! });
    await client.end();
    for (const s of shapes) if (!values.only || values.only.split(',').includes(s.endpoint)) process.stdout.write(`${s.path}\t${s.endpoint}: ${s.filters}, ${s.values}\n`);
    process.exit(0);
  }
  const started = Date.now();
  const report = await runSweep({
    url: url!,
    quick: values.quick!,
    pages: !values['no-pages'],
    ...(values.only ? { only: values.only.split(',') } : {}),
    progress(row, done, total) {
      if (values.verbose || row.timing.slow) {
        const t = row.timing;
        process.stdout.write(
          `${row.timing.slow ? 'SLOW ' : '     '}[${done + 1}/${total}] ${row.status} ${row.path}${row.page > 1 ? ' (page 2)' : ''}\n` +
            `       ${row.statement.sender} [${row.statement.plan}]: generic ${t.genericMs.toFixed(2)} ms, custom ${t.customMs.toFixed(2)} ms, service ${t.serviceMs.toFixed(2)} ms\n`,
        );
      }
    },
  });
  process.stdout.write(`\n${report.rows.length} statement runs of ${new Set(report.rows.map((r) => r.shape.path)).size} shapes in ${((Date.now() - started) / 1000).toFixed(0)} s\n\n`);
  for (const line of summarize(report.rows)) process.stdout.write(`${line}\n`);
  process.stdout.write(`\n${report.slow.length} slow\n`);
  if (values.json) {
    const replacer = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : v);
    writeFileSync(values.json, JSON.stringify({ samples: report.samples, rows: report.rows }, replacer, 1));
  }
  process.exit(report.slow.length > 0 ? 1 : 0);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
