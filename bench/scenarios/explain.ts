/**
 * Query plans of request paths: each path is answered by the service (in process, `app.inject`)
 * against DATABASE_URL, and every statement it sends is first run with
 * `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` on a separate connection that plans it the way the
 * service's sessions do (`--mode service`, the default: the service's own plan_cache_mode) or as
 * another plan_cache_mode says (`--mode custom`: a custom plan for the parameter values).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/cqs_bench npm run bench -- explain \
 *     [--url-file FILE | PATH ...] [--mode service|generic|custom|auto] [--plans]
 *
 * Prints one line per statement: status of the request, execution ms, buffers (hit/read), rows,
 * and the plan's scans (index names, with "Sort" / "Seq Scan" called out); --plans prints whole plans.
 */
import { createRequire } from 'node:module';
import pg from 'pg';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Db, Session } from '../../src/db/db.ts';
import { Sql } from '../../src/db/sql.ts';
import { PLAN_CACHE_MODE, createPostgresDb } from '../../src/db/postgres.ts';
import { readUrlFile } from '../lib/urls.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { URL_FILE } from '../lib/options.ts';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

interface Explained {
  Plan: PlanNode & { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
  'Execution Time': number;
  'Planning Time': number;
}

/** The scans of a plan, depth first: "Index Scan contract_log__contract_id_timestamp_index", "Sort", ... */
function scans(node: PlanNode, out: string[] = []): string[] {
  const type = node['Node Type'];
  if (node['Index Name']) out.push(`${type} ${node['Index Name']}`);
  else if (type === 'Seq Scan') out.push(`Seq Scan ${node['Relation Name']}`);
  else if (/Sort|Function Scan/.test(type)) out.push(type);
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

const USAGE = `  PATH ...             request paths to explain (or --url-file)
  --url-file FILE      request paths, one per line
  --mode MODE          service (the service's plan_cache_mode), generic, custom or auto (default service)
  --plans              print whole plans
  DATABASE_URL         the database to explain on (required)`;

const OPTIONS = {
  ...URL_FILE,
  mode: { type: 'string', default: 'service' },
  plans: { type: 'boolean', default: false },
} satisfies OptionsConfig;

async function main({ values, positionals, fail }: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) fail('set DATABASE_URL to the database to explain on');
  const paths = values['url-file'] ? readUrlFile(values['url-file']) : positionals;
  if (paths.length === 0) fail('give request paths or --url-file');
  const modes: Record<string, string> = { service: PLAN_CACHE_MODE, generic: 'force_generic_plan', custom: 'force_custom_plan', auto: 'auto' };
  const mode = modes[values.mode!];
  if (mode === undefined) fail(`--mode is one of ${Object.keys(modes).join(', ')}`);

  const explainer = new pg.Client({ connectionString: url, options: `-c jit=off -c plan_cache_mode=${mode}${process.env.EXPLAIN_OPTIONS ?? ""}` });
  await explainer.connect();
  const config = loadConfig({ ...process.env, DATABASE_URL: url }, '/nonexistent');
  const inner = createPostgresDb(config);
  let statements = 0;
  /** EXPLAIN of a prepared statement, so that plan_cache_mode decides between generic and custom plans. */
  const explain = async (text: string, params: readonly unknown[]) => {
    const name = `explained_${++statements}`;
    // EXECUTE takes literals: each value as node-postgres would send it, as an untyped literal that
    // takes the statement's parameter type
    const literal = (v: unknown) => (Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : String(prepareValue(v)));
    const args = params.length ? `(${params.map((v) => explainer.escapeLiteral(literal(v))).join(', ')})` : '';
    await explainer.query(`prepare ${name} as ${text}`);
    try {
      await explainer.query(`execute ${name}${args}`); // warm, as the service's sessions are
      const { rows } = await explainer.query(`explain (analyze, buffers, format json) execute ${name}${args}`);
      const [result] = (rows[0] as { 'QUERY PLAN': Explained[] })['QUERY PLAN'];
      const plan = result!.Plan;
      const buffers = `${plan['Shared Hit Blocks'] ?? 0}/${plan['Shared Read Blocks'] ?? 0}`;
      process.stdout.write(
        `  ${result!['Execution Time'].toFixed(3).padStart(9)} ms  buffers ${buffers.padEnd(11)} rows ${String(plan['Actual Rows']).padEnd(4)} ${scans(plan).join(', ')}\n`,
      );
      if (values.plans) {
        const { rows: lines } = await explainer.query(`explain (analyze, buffers) execute ${name}${args}`);
        for (const line of lines as Array<{ 'QUERY PLAN': string }>) process.stdout.write(`      ${line['QUERY PLAN']}\n`);
      }
    } finally {
      await explainer.query(`deallocate ${name}`);
    }
  };
  const explaining: Session = {
    async query<R>(statement: Sql | string, parameters: readonly unknown[] = []) {
      const { text, values } = statement instanceof Sql ? statement.compile() : { text: statement, values: parameters };
      await explain(text, values);
      return inner.query<R>(text, values);
    },
    exec: (text) => inner.exec(text),
  };
  const db: Db = {
    ...explaining,
    kind: 'postgres',
    session: (work) => work(explaining),
    close: () => inner.close(),
    poolStats: () => inner.poolStats(),
    observe: (observer) => inner.observe(observer),
  };
  const app = createApp(config, db);
  process.stdout.write(`plan_cache_mode=${mode}\n`);
  for (const path of paths) {
    process.stdout.write(`${path}\n`);
    const res = await app.inject(path);
    process.stdout.write(`  -> ${res.statusCode}${res.statusCode >= 500 ? ` ${res.body}` : ''}\n`);
  }
  await app.close();
  await db.close();
  await explainer.end();
}

export default defineScenario({ usage: USAGE, options: OPTIONS, positionals: 'PATH ...', run: main });
