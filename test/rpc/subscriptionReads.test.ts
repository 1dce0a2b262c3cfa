/**
 * eth_subscribe's cost on a database that does not change: the statements per tick do not grow with
 * the subscriptions (issue 48: one database read per tick whatever their number).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import type { Db } from '../../src/db/db.ts';
import { sql } from '../../src/db/sql.ts';
import { writeBlock } from '../../src/demo/live.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, countingDb, delayingDb, serveRpc } from './support.ts';

let database: TestDatabase;
let served: Served;
let statements: string[] = [];
let counting: Db;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  counting = countingDb(database.db, (text) => statements.push(text));
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

test('newHeads subscriptions begun at different blocks, on a database slower than a tick: one read of the headers per new block, each header once to each', async () => {
  // the headers' read takes longer than a tick (50 ms): subscriptions begin while it is under way
  const slow = delayingDb(counting, (text) => (/from record_file where index >/.test(text) ? 120 : 0));
  const slowServed = await serveRpc(slow, { HIERO_MIRROR_REST_LIVE_TICKMS: '50' });
  const NS = 1_000_000_000n;
  const [row] = await database.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
  let end = BigInt(row!.end);
  // headers per subscription id, in arrival order; subscription ids by request id
  const received = new Map<string, number[]>();
  const ids = new Map<number, string>();
  const sockets: WebSocket[] = [];
  const subscribe = (id: number) =>
    new Promise<void>((resolve) => {
      // each on a connection of its own (newHeads asked twice on one connection is one subscription)
      const ws = new WebSocket(`${slowServed.base.replace('http', 'ws')}/rpc`);
      ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params: ['newHeads'] })));
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data));
        if (msg.method === 'eth_subscription') {
          const list = received.get(msg.params.subscription) ?? [];
          list.push(Number(msg.params.result.number));
          received.set(msg.params.subscription, list);
        } else {
          ids.set(msg.id, msg.result);
          sockets.push(ws);
          resolve();
        }
      });
    });
  const began = new Map<number, bigint>();
  let newest = 0n;
  statements = [];
  for (let id = 1; id <= 5; id++) {
    await subscribe(id);
    began.set(id, newest);
    // blocks written one at a time, a tick apart or less: subscriptions begin at different blocks
    for (let b = 0; b < 2; b++) {
      newest = await writeBlock(database.db, (end += 2n * NS));
      await new Promise((r) => setTimeout(r, 30));
    }
  }
  // every subscription has the newest header
  for (let waited = 0; waited < 5000; waited += 50) {
    if ([...ids.values()].every((sid) => received.get(sid)?.at(-1) === Number(newest))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const headReads = statements.filter((t) => /from record_file where index >/.test(t)).length;
  for (const ws of sockets) ws.close();
  await slowServed.close();
  for (const [request, sid] of ids) {
    const got = received.get(sid) ?? [];
    assert.ok(got.length > 0, `subscription ${request}: no header`);
    // consecutive, each once, through the newest block
    got.forEach((n, i) => i > 0 && assert.equal(n, got[i - 1]! + 1, `subscription ${request}: ${got.join(',')}`));
    assert.equal(got.at(-1), Number(newest), `subscription ${request}: ${got.join(',')}`);
    // nothing older than the newest block when it began (that one too, when the feed had not read it yet)
    assert.ok(BigInt(got[0]!) >= began.get(request)!, `subscription ${request} begun at ${began.get(request)}: ${got.join(',')}`);
  }
  // ten blocks written: at most one read of the headers per tick that has new blocks
  assert.ok(headReads >= 1 && headReads <= 10, `${headReads} reads of the headers for 10 blocks and 5 subscriptions`);
});
