/**
 * Writes a relay-shaped workload for `npm run bench -- run --mix zipf`: distinct request paths over all
 * ten routes, sampled from a mirror node database (read only), one per line in popularity-rank
 * order, and the hot set (the newest blocks' results and logs) to a second file.
 *
 *   npm run bench -- gen-workload --database-url postgres://postgres@127.0.0.1:5432/cqs_bench \
 *     --out /tmp/workload.txt --hot-out /tmp/workload-hot.txt [--count 12000] [--seed 1]
 */
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import type { Fail } from '../lib/cli.ts';
import { buildWorkload, sampleDatabase, seededRandom } from '../lib/workload.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { DATABASE_URL } from '../lib/options.ts';

const USAGE = `  --database-url URL   the database to sample (read only)               (default $DATABASE_URL)
  --out FILE           the ranked URL list
  --hot-out FILE       the hot set (the newest blocks' results and logs)
  --count N            distinct URLs to write                                  (default 12000)
  --seed N             sampling and shuffling seed                                 (default 1)`;

const OPTIONS = {
  ...DATABASE_URL,
  out: { type: 'string' },
  'hot-out': { type: 'string' },
  count: { type: 'string', default: '12000' },
  seed: { type: 'string', default: '1' },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (!url) fail('--database-url (or DATABASE_URL) is required');
  if (!values.out || !values['hot-out']) fail('--out and --hot-out are required');
  const count = Number(values.count);
  const seed = Number(values.seed);
  if (!Number.isInteger(count) || count < 1) fail(`--count must be a positive integer, got ${values.count}`);
  if (!Number.isInteger(seed)) fail(`--seed must be an integer, got ${values.seed}`);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = Date.now();
  let samples;
  try {
    await client.query('set default_transaction_read_only = on');
    // each shape needs about count/8 samples at most; sample more so that duplicates do not starve it
    samples = await sampleDatabase(client, Math.ceil(count / 4), (seed % 1000) / 1000);
  } finally {
    await client.end();
  }
  const workload = buildWorkload(samples, count, seededRandom(seed));
  writeFileSync(values.out, `${workload.urls.join('\n')}\n`);
  writeFileSync(values['hot-out'], `${workload.hot.join('\n')}\n`);
  const shapes = Object.entries(workload.shapes).map(([shape, n]) => `${shape} ${n}`).join(', ');
  process.stderr.write(
    `${workload.urls.length} distinct URLs to ${values.out} (${shapes}); ${workload.hot.length} hot URLs to ${values['hot-out']}; ` +
      `sampled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  if (workload.urls.length < count) process.stderr.write(`warning: the database gave only ${workload.urls.length} of ${count} distinct URLs\n`);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
