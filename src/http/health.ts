/**
 * Health probes at the reference's paths and with its answers (its terminus setup): liveness is
 * always `200 {"status":"ok"}`; readiness is `200 {"status":"ok"}` when the database answers and
 * holds every table this service reads, else `503 {"status":"error"}`.
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.ts';
import { sql } from '../db/sql.ts';

/** The importer's tables the routes read; readiness waits for all of them. */
export const TABLES_READ = [
  'contract',
  'contract_action',
  'contract_log',
  'contract_result',
  'contract_state',
  'contract_state_change',
  'contract_transaction',
  'contract_transaction_hash',
  'entity',
  'entity_history',
  'ethereum_transaction',
  'file_data',
  'record_file',
  'transaction',
  'transaction_hash',
] as const;

/** True when the database answers and every table of TABLES_READ is on the search path. */
export async function isReady(db: Db): Promise<boolean> {
  try {
    const rows = await db.query<{ missing: number }>(
      sql`select count(*)::int as missing from unnest(${[...TABLES_READ]}::text[]) as t(name) where to_regclass(t.name) is null`,
    );
    return rows[0]?.missing === 0;
  } catch {
    return false;
  }
}

const OK = '{"status":"ok"}';
const ERROR = '{"status":"error"}';

/** `stopping`: true once the shutdown began; readiness then answers 503 (liveness stays 200). */
export function registerHealth(app: FastifyInstance, db: Db, stopping: () => boolean = () => false): void {
  const answer = (ok: boolean) => ({ status: ok ? 200 : 503, body: ok ? OK : ERROR });
  for (const [url, check] of [
    ['/health/liveness', async () => true],
    ['/health/readiness', async () => !stopping() && (await isReady(db))],
  ] as const) {
    app.route({
      method: ['GET', 'HEAD'],
      url,
      config: { operational: true, probe: true },
      handler: async (_request, reply) => {
        const { status, body } = answer(await check());
        return reply.code(status).header('content-type', 'application/json').send(Buffer.from(body));
      },
    });
  }
}
