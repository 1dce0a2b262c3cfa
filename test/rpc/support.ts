/** The endpoint on the demo network for the tests of test/rpc: an app on a free port, JSON-RPC calls. */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/db.ts';
import { sql } from '../../src/db/sql.ts';
import { appOn, testConfig } from '../support/app.ts';

export interface Served {
  app: FastifyInstance;
  base: string;
  close(): Promise<void>;
}

/** `db`, with each statement's text told to `seen` before it runs (statements counted by a test). */
export function countingDb(db: Db, seen: (text: string) => void): Db {
  return {
    ...db,
    query: ((statement: { compile(): { text: string } } | string, values?: readonly unknown[]) => {
      seen(typeof statement === 'string' ? statement : statement.compile().text);
      return (db.query as (s: unknown, v?: readonly unknown[]) => Promise<unknown[]>)(statement, values);
    }) as Db['query'],
  };
}

/** `db`, each statement run `delayOf(its text)` ms later (0: at once): a slow database for a test. */
export function delayingDb(db: Db, delayOf: (text: string) => number): Db {
  return {
    ...db,
    query: (async (statement: { compile(): { text: string } } | string, values?: readonly unknown[]) => {
      const ms = delayOf(typeof statement === 'string' ? statement : statement.compile().text);
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      return (db.query as (s: unknown, v?: readonly unknown[]) => Promise<unknown[]>)(statement, values);
    }) as Db['query'],
  };
}

/** An app on `db` on a free port (live ticks every 50 ms). */
export async function serveRpc(db: Db, env: Record<string, string> = {}): Promise<Served> {
  const app = appOn(db, { config: testConfig({ HIERO_MIRROR_REST_LIVE_TICKMS: '50', ...env }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app,
    base,
    async close() {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

/** POSTs a body to /rpc; the status, the parsed answer and its text. */
export async function post(base: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(`${base}/rpc`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** One call's answer. */
export const call = (base: string, method: string, params: unknown = [], id: unknown = 1) => post(base, { jsonrpc: '2.0', id, method, params });

/** The message without the relay's `[Request ID: ...] ` prefix. */
export const unprefixed = (message: string): string => message.replace(/^\[Request ID: [^\]]*\] /, '');

/** One record file (block 7, consensus 1000-2000): enough for the methods that answer from the newest block. */
export async function insertOneBlock(db: Db): Promise<void> {
  await db.query(
    sql`insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count, digest_algorithm, version, file_hash, index, node_id)
      values ('a.rcd', 0, 0, ${'ef'.repeat(48)}, '', 1000, 2000, 1, 0, 6, '', 7, 3)`,
  );
}
