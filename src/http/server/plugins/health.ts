/**
 * Health probes at the reference's paths and with its answers (its terminus setup): liveness is
 * always `200 {"status":"ok"}`; readiness is `200 {"status":"ok"}` when the database answers and
 * holds every table this service reads, else `503 {"status":"error"}` (at once, without a query,
 * while the start-up watch of an external database has not found it ready: src/db/watch.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../../db/db.ts';
import { missingTables } from '../../../db/readiness.ts';
import { databaseStatus } from '../../../db/status.ts';

/**
 * True when the database answers and holds every table the routes read. Until the start-up watch
 * has found it so (an external database that is down or empty at start), false without asking it.
 */
export async function isReady(db: Db): Promise<boolean> {
  if (!databaseStatus(db).started) return false;
  try {
    return (await missingTables(db)).length === 0;
  } catch {
    return false;
  }
}

const OK = '{"status":"ok"}';
const ERROR = '{"status":"error"}';

/**
 * `stopping`: true once the shutdown began; readiness then answers 503 (liveness stays 200). With
 * several networks (`name` set), readiness needs every one ready and names each one's state:
 * `{"status":"ok","networks":{"testnet":"ok","previewnet":"error"}}`.
 */
export function registerHealth(app: FastifyInstance, dbs: ReadonlyArray<{ name: string | undefined; db: Db }>, stopping: () => boolean = () => false): void {
  const readiness = async () => {
    if (stopping()) return { status: 503, body: ERROR };
    const states = await Promise.all(dbs.map(async ({ db }) => isReady(db)));
    const ok = states.every(Boolean);
    if (dbs[0]?.name === undefined) return { status: ok ? 200 : 503, body: ok ? OK : ERROR };
    const networks = Object.fromEntries(dbs.map(({ name }, i) => [name!, states[i] ? 'ok' : 'error']));
    return { status: ok ? 200 : 503, body: JSON.stringify({ status: ok ? 'ok' : 'error', networks }) };
  };
  for (const [url, check] of [
    ['/health/liveness', async () => ({ status: 200, body: OK })],
    ['/health/readiness', readiness],
  ] as const) {
    app.route({
      method: ['GET', 'HEAD'],
      url,
      config: { operational: true, probe: true },
      handler: async (_request, reply) => {
        const { status, body } = await check();
        return reply.code(status).header('content-type', 'application/json').send(Buffer.from(body));
      },
    });
  }
}
