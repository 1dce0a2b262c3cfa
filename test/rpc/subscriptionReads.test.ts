/**
 * eth_subscribe's cost on a database that does not change: the statements per tick do not grow with
 * the subscriptions (issue 48: one database read per tick whatever their number).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { sql } from '../../src/db/sql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, countingDb, serveRpc } from './support.ts';

let database: TestDatabase;
let served: Served;
let statements: string[] = [];

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  const counting = countingDb(database.db, (text) => statements.push(text));
  served = await serveRpc(counting, { HIERO_MIRROR_REST_LIVE_TICKMS: '50', HIERO_MIRROR_REST_RPC_WS_MAXSUBSCRIPTIONSPERCONNECTION: '1000' });
});
after(async () => {
  await served?.close();
  await database?.close();
});

async function open(n: number, address: string, topic0: string): Promise<WebSocket[]> {
  const sockets = await Promise.all(
    Array.from({ length: 4 }, () => new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${served.base.replace('http', 'ws')}/rpc`);
      ws.on('open', () => resolve(ws));
      ws.on('error', reject);
    })),
  );
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    for (const ws of sockets) {
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data));
        if (msg.error) reject(new Error(msg.error.message));
        if (++answered === n) resolve();
      });
    }
    for (let i = 0; i < n; i++) {
      const params = i % 10 === 9 ? ['newHeads'] : i % 3 === 0 ? ['logs', { address, topics: [topic0] }] : i % 3 === 1 ? ['logs', { address }] : ['logs', {}];
      sockets[i % sockets.length]!.send(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'eth_subscribe', params }));
    }
  });
  return sockets;
}

const isTick = (text: string) => /^with files as \(/.test(text.trim());

/** Statements sent in `ms` with `n` subscriptions open, once their setup's reads have ended. */
async function statementsWhileOpen(n: number, address: string, topic0: string, ms: number): Promise<string[]> {
  const sockets = await open(n, address, topic0);
  // the setup's reads (address look-ups) may end after the answers: wait for 300 ms of ticks alone
  for (let quietSince = Date.now(), started = Date.now(); Date.now() - quietSince < 300 && Date.now() - started < 10_000; ) {
    statements = [];
    await new Promise((r) => setTimeout(r, 50));
    if (statements.some((t) => !isTick(t))) quietSince = Date.now();
  }
  statements = [];
  await new Promise((r) => setTimeout(r, ms));
  const seen = statements;
  for (const ws of sockets) ws.close();
  await new Promise((r) => setTimeout(r, 200));
  return seen;
}

test('subscriptions: one statement per tick (the feed\'s), with 10 or 400 subscriptions', async () => {
  const [log] = await database.db.query<{ a: string; t: string }>(
    sql`select encode(e.evm_address, 'hex') as a, encode(l.topic0, 'hex') as t from contract_log l join entity e on e.id = l.contract_id where e.evm_address is not null and l.topic0 is not null limit 1`,
  );
  const address = `0x${log!.a}`;
  const topic0 = `0x${log!.t.padStart(64, '0')}`;
  for (const n of [10, 400]) {
    const seen = await statementsWhileOpen(n, address, topic0, 1000);
    assert.ok(seen.length > 0, 'the feed reads while subscriptions are open');
    assert.deepEqual(seen.filter((t) => !isTick(t)), [], `${n} subscriptions: only the feed's tick statement`);
    // ticks every 50 ms: at most 21 in a second, whatever the number of subscriptions
    assert.ok(seen.length <= 21, `${n} subscriptions: ${seen.length} statements in 1 s`);
  }
});
