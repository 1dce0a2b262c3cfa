/**
 * The plan sweep: every shape of shapes.ts is answered by the service in process on the database, every
 * statement it sends is timed with a generic plan, with a custom plan and with the service's own choice
 * (timing.ts), and a statement whose service plan is over 3x and over 20 ms slower than the better of
 * the two is reported as slow, when timing it a second time finds it slow again. The second page of
 * each listing (its next link) is swept too.
 */
import pg from 'pg';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import { dbLayout, openLayoutDb, planCacheModeFor } from '../../src/db/layout.ts';
import { sampleSelectivity, type Samples } from './sample.ts';
import { type Shape, sweepShapes } from './shapes.ts';
import { PlanTimer, type Statement, type Timing, type Verdict, SWEEP_VERDICT, capturing } from './timing.ts';

export interface SweepRow {
  shape: Shape;
  /** 1 for the shape's own URL, 2 for its next link. */
  page: number;
  path: string;
  status: number;
  statement: Statement;
  timing: Timing;
}

export interface SweepOptions {
  /** The database, as a URL. */
  url: string;
  /** One order and the widest window only (the test suite's short run). */
  quick?: boolean;
  /** Follow each listing's next link once (default true). */
  pages?: boolean;
  verdict?: Verdict;
  /** Only shapes whose endpoint is listed. */
  only?: readonly string[];
  /** Told of every row as it is measured. */
  progress?: (row: SweepRow, done: number, total: number) => void;
}

export interface SweepReport {
  samples: Samples;
  rows: SweepRow[];
  slow: SweepRow[];
}

/** Statements the sweep times: the routes' reads, not catalog probes. */
const isRead = (text: string) => /^\s*(select|with)\b/i.test(text) && !/\bpg_catalog\b|\bpg_class\b|to_regclass|pg_is_in_recovery/.test(text);

export async function runSweep(options: SweepOptions): Promise<SweepReport> {
  const { url, quick = false, pages = true, verdict = SWEEP_VERDICT } = options;
  const sampler = new pg.Client({ connectionString: url });
  await sampler.connect();
  let samples: Samples;
  try {
    samples = await sampleSelectivity(sampler);
  } finally {
    await sampler.end();
  }
  const config = loadConfig({ DATABASE_URL: url, HIERO_MIRROR_REST_SERVER_PRESSURE_MAXEVENTLOOPDELAY: '0' }, '/nonexistent');
  const inner = await openLayoutDb(config);
  const capture = capturing(inner);
  const app = createApp(config, capture.db, false);
  const timer = new PlanTimer(url, planCacheModeFor(dbLayout(inner)!));
  const shapes = sweepShapes(samples, { quick }).filter((s) => !options.only || options.only.includes(s.endpoint));
  const rows: SweepRow[] = [];
  const timed = new Map<string, Timing>();
  try {
    let done = 0;
    for (const shape of shapes) {
      let path: string | null = shape.path;
      // the second page of the widest windows (a page further into the range)
      const follow = pages && !/over an? (block|hour)/.test(shape.filters);
      for (let page = 1; path !== null && page <= (follow ? 2 : 1); page++) {
        capture.take();
        const res: { statusCode: number; body: string } = await app.inject({ method: "GET", url: path as string });
        const statements = capture.take().filter((s) => isRead(s.text));
        for (const statement of statements) {
          const key = `${statement.plan}\u0000${statement.text}\u0000${JSON.stringify(statement.values, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;
          let timing = timed.get(key);
          if (timing === undefined) {
            timing = await timer.time(statement, verdict);
            // A slow verdict stands only if a second timing repeats it: a plan cliff (40-100x) does, a
            // moment when the machine was busy elsewhere (another job, a noisy neighbour) does not.
            if (timing.slow) timing = await timer.time(statement, verdict);
            timed.set(key, timing);
          }
          const row: SweepRow = { shape, page, path, status: res.statusCode, statement, timing };
          rows.push(row);
          options.progress?.(row, done, shapes.length);
        }
        const next: string | null | undefined = res.statusCode === 200 ? (JSON.parse(res.body) as { links?: { next?: string | null } }).links?.next : null;
        path = next ?? null;
      }
      done++;
    }
  } finally {
    await timer.close();
    await app.close();
    await inner.close();
  }
  return { samples, rows, slow: rows.filter((r) => r.timing.slow) };
}

/** One line per statement sender: how many executions, the plan it uses, and the range of its times per plan. */
export function summarize(rows: readonly SweepRow[]): string[] {
  const bySender = new Map<string, SweepRow[]>();
  for (const row of rows) {
    const key = `${row.statement.sender} [${row.statement.plan}]`;
    bySender.set(key, [...(bySender.get(key) ?? []), row]);
  }
  const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
  const span = (xs: number[]) => `${ms(Math.min(...xs))}-${ms(Math.max(...xs))}`;
  return [...bySender.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, rs]) => {
      const worst = rs.reduce((w, r) => (r.timing.serviceMs / r.timing.bestMs > w.timing.serviceMs / w.timing.bestMs ? r : w));
      return `${key}: ${rs.length} runs; generic ${span(rs.map((r) => r.timing.genericMs))} ms, custom ${span(rs.map((r) => r.timing.customMs))} ms, service ${span(rs.map((r) => r.timing.serviceMs))} ms; worst service/best ${(worst.timing.serviceMs / worst.timing.bestMs).toFixed(1)}x (${ms(worst.timing.serviceMs)} vs ${ms(worst.timing.bestMs)} ms: ${worst.shape.endpoint} ${worst.shape.filters} ${worst.shape.values}${worst.page > 1 ? ' page 2' : ''})`;
    });
}
