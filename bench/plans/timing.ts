/**
 * The statements behind a request, and how long each takes with a generic plan, with a custom plan, and
 * with the plan the service uses for it (src/db/sql.ts, PlanChoice). A statement is prepared by name on
 * one connection per plan mode, exactly as the service's sessions send it (extended protocol, the same
 * values), run once to warm up, then timed at the client: the median of up to three runs.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Db, Session } from '../../src/db/db.ts';
import { type PlanChoice, Sql } from '../../src/db/sql.ts';
import { typeParsers } from '../../src/db/types.ts';

export interface Statement {
  text: string;
  values: readonly unknown[];
  plan: PlanChoice;
  /** Where the service sends it from: the first function outside src/db on the stack ("contracts/logs/query.ts findLogs"). */
  sender: string;
}

/** The first frame of the stack in src/ but outside src/db/: the function that sent the statement. */
function senderOf(stack: string | undefined): string {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const m = /at (?:async )?(?:(\S+) \()?.*\/src\/([^:]+\.ts):\d+/.exec(line);
    if (m && !m[2]!.startsWith('db/')) return `${m[2]} ${m[1] ?? '(anonymous)'}`;
  }
  return 'unknown';
}

export interface Timing {
  genericMs: number;
  customMs: number;
  /** With the plan the service uses: the session's mode for `cached`; for `custom`, a custom plan without sequential scans (src/db/db.ts). */
  serviceMs: number;
  bestMs: number;
  /** Over `ratio` times and over `marginMs` slower than the better of the two plans. */
  slow: boolean;
}

export interface Verdict {
  ratio: number;
  marginMs: number;
}

/** The plan sweep's rule (issue 25): the service's plan may be at most 3x and 20 ms slower than the better one. */
export const SWEEP_VERDICT: Verdict = { ratio: 3, marginMs: 20 };

export function judge(genericMs: number, customMs: number, serviceMs: number, verdict: Verdict = SWEEP_VERDICT): Timing {
  const bestMs = Math.min(genericMs, customMs);
  return { genericMs, customMs, serviceMs, bestMs, slow: serviceMs > verdict.ratio * bestMs && serviceMs - bestMs > verdict.marginMs };
}

/** A Db that records every statement the app sends through it (and still runs it). */
export function capturing(db: Db): { db: Db; take(): Statement[] } {
  let taken: Statement[] = [];
  const record: Session['query'] = async <R>(statement: Sql | string, values?: readonly unknown[]) => {
    const compiled = statement instanceof Sql ? statement.compile() : { text: statement, values: values ?? [], plan: 'cached' as const };
    taken.push({ ...compiled, sender: senderOf(new Error().stack) });
    return db.query<R>(statement, values);
  };
  return {
    db: { ...db, query: record, session: (work) => db.session(work), poolStats: () => db.poolStats(), observe: (o) => db.observe(o), close: () => db.close() },
    take() {
      const out = taken;
      taken = [];
      return out;
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Times statements on connections of their own, one per plan mode. */
export class PlanTimer {
  private readonly clients = new Map<string, pg.Client>();

  /** `sessionMode`: the plan_cache_mode of the service's sessions (force_generic_plan; auto on v2). */
  constructor(
    private readonly url: string,
    private readonly sessionMode: string,
    private readonly statementTimeoutMs = 30_000,
  ) {}

  /** A connection of its own per set of planner settings: `mode` is the plan_cache_mode, `extra` more `-c` options. */
  private async client(mode: string, extra = ''): Promise<pg.Client> {
    let client = this.clients.get(mode + extra);
    if (client === undefined) {
      client = new pg.Client({
        connectionString: this.url,
        options: `-c jit=off -c plan_cache_mode=${mode} -c bytea_output=hex -c statement_timeout=${this.statementTimeoutMs}${extra}`,
        types: typeParsers,
      });
      await client.connect();
      this.clients.set(mode + extra, client);
    }
    return client;
  }

  /** Median wall time of the statement under `mode`, after one run that warms the cache (and plans a generic plan). */
  async run(statement: Statement, mode: string, runs = 3, extra = ''): Promise<number> {
    const client = await this.client(mode, extra);
    const name = `sweep_${createHash('sha1').update(statement.text).digest('hex').slice(0, 16)}`;
    const query = { name, text: statement.text, values: statement.values as unknown[] };
    await client.query(query);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await client.query(query);
      times.push(performance.now() - started);
      if (times[times.length - 1]! > 500) break; // a slow statement tells its story in one run
    }
    return median(times);
  }

  async time(statement: Statement, verdict: Verdict = SWEEP_VERDICT): Promise<Timing> {
    const genericMs = await this.run(statement, 'force_generic_plan');
    const customMs = await this.run(statement, 'force_custom_plan');
    const serviceMs =
      statement.plan === 'custom'
        ? await this.run(statement, 'force_custom_plan', 3, ' -c enable_seqscan=off')
        : this.sessionMode === 'force_generic_plan'
          ? genericMs
          : await this.run(statement, this.sessionMode);
    return judge(genericMs, customMs, serviceMs, verdict);
  }

  async close(): Promise<void> {
    for (const client of this.clients.values()) await client.end().catch(() => {});
    this.clients.clear();
  }
}
