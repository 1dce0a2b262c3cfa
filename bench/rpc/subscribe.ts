/**
 * eth_subscribe at scale: N subscriptions (nine in ten `logs` with an address and topic0 of the
 * sample or none, one in ten `newHeads`) spread over K WebSockets, and the database's transactions
 * per second (pg_stat_database, the mirror node database) for 20 s before they open and 20 s while
 * they are open (from 11 s after they opened). The bench database is static: what is counted is the cost of watching, one read per
 * tick whatever the number of subscriptions. Needs a WebSocket in Node (22 or later, or 20 with
 * --experimental-websocket).
 */
import { spawnSync } from 'node:child_process';
import type { Pool } from './sample.ts';

export interface SubscriptionFigures {
  subscriptions: number;
  sockets: number;
  confirmed: number;
  refused: string[];
  openMs: number;
  baselinePerSecond: number;
  openPerSecond: number;
  notifications: number;
}

const WINDOW_S = 20;
/**
 * PostgreSQL 15 adds a backend's transactions to pg_stat_database when it goes idle, at most once a
 * second, else up to 10 s later (PGSTAT_IDLE_INTERVAL): the subscriptions' address look-ups, all at
 * once, are counted up to 10 s after they ran. The window starts once they must be in.
 */
const SETTLE_MS = 11_000;

function transactions(psql: string): number {
  const run = spawnSync('sh', ['-c', `${psql} -X -A -t -q`], {
    input: 'select xact_commit + xact_rollback from pg_stat_database where datname = current_database()',
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`psql failed: ${run.stderr}`);
  return Number(run.stdout.trim());
}

async function perSecond(psql: string): Promise<number> {
  const t0 = transactions(psql);
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  // the psql of each reading is one transaction of its own
  return Math.round(((transactions(psql) - t0 - 1) / WINDOW_S) * 10) / 10;
}

export async function subscriptionLoad(
  url: string,
  psql: string,
  pool: Pool,
  pairs: { address: string; topic0: string }[],
  n: number,
  socketCount: number,
): Promise<SubscriptionFigures> {
  const WS = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!WS) throw new Error('no WebSocket in this Node: use Node 22 or later, or NODE_OPTIONS=--experimental-websocket');
  const baselinePerSecond = await perSecond(psql);
  const refused: string[] = [];
  let confirmed = 0;
  let notifications = 0;
  const t0 = performance.now();
  const sockets = await Promise.all(
    Array.from({ length: socketCount }, () => new Promise<WebSocket>((resolve, reject) => {
      const ws = new WS(url);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error(`WebSocket ${url} did not open`));
    })),
  );
  const done = new Promise<void>((resolve) => {
    let answered = 0;
    for (const ws of sockets) {
      ws.onmessage = (m) => {
        const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string };
        if (msg.method === 'eth_subscription') return void notifications++;
        if (msg.error) refused.push(msg.error.message);
        else confirmed++;
        if (++answered === n) resolve();
      };
    }
  });
  for (let i = 0; i < n; i++) {
    const pair = pairs[i % pairs.length]!;
    const params =
      i % 10 === 9 ? ['newHeads'] : i % 3 === 0 ? ['logs', { address: pair.address, topics: [pair.topic0] }] : i % 3 === 1 ? ['logs', { address: pool.rareAddresses[i % pool.rareAddresses.length] }] : ['logs', {}];
    sockets[i % socketCount]!.send(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'eth_subscribe', params }));
  }
  await done;
  const openMs = Math.round(performance.now() - t0);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const openPerSecond = await perSecond(psql);
  for (const ws of sockets) ws.close();
  const figures = { subscriptions: n, sockets: socketCount, confirmed, refused: [...new Set(refused)], openMs, baselinePerSecond, openPerSecond, notifications };
  console.log(`\nsubscriptions: ${JSON.stringify(figures)}`);
  return figures;
}
