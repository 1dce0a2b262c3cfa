/**
 * The turns of eth_getLogs walks (src/rpc/pageGate.ts) with one page read at a time: a walk of a few
 * pages that begins while two of a hundred pages are being read (one always waiting for the place)
 * finishes long before them (the long walks' pages push their turns back), and every answer is whole.
 * An answer's first page is read at once, even while later pages wait for a place: a call of one
 * block never waits behind longer ones.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from '../../src/db/sql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { pageGateOf } from '../../src/rpc/pageGate.ts';
import type { Db } from '../../src/db/db.ts';
import { type Served, call, delayingDb, serveRpc } from './support.ts';

let database: TestDatabase;
let served: Served;
let slow: Db;

const hex = (n: string | bigint) => `0x${BigInt(n).toString(16)}`;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  // pages of 10 logs, each read taking 10 ms more: the whole range is a walk of some 120 pages
  slow = delayingDb(database.db, (text) => (/from contract_log/.test(text) ? 10 : 0));
  served = await serveRpc(slow, {
    HIERO_MIRROR_REST_RPC_PAGESIZE: '10',
    HIERO_MIRROR_REST_RPC_PAGEREADS: '1',
    HIERO_MIRROR_REST_RPC_TIMESTAMPRANGELIMIT: '0',
    HIERO_MIRROR_REST_RPC_BLOCKRANGELIMIT: '100000000',
  });
});
after(async () => {
  await served?.close();
  await database?.close();
});

test('a walk of a few pages that begins during two of a hundred takes turns with them and finishes first', async () => {
  const [range] = await database.db.query<{ first: string; last: string }>(sql`select min(index)::text as first, max(index)::text as last from record_file`);
  // the newest blocks holding 30 to 60 logs: a walk of 3 to 6 pages
  const [short] = await database.db.query<{ from: string }>(sql`select r.index::text as from from record_file r
    where (select count(*) from contract_log l where l.consensus_timestamp >= r.consensus_start) between 30 and 60
    order by r.index desc limit 1`);
  assert.ok(short, 'the demo has a range of 30 to 60 logs');
  const whole = [{ fromBlock: hex(range!.first), toBlock: hex(range!.last) }];
  const recent = [{ fromBlock: hex(short!.from), toBlock: hex(range!.last) }];
  const alone = await call(served.base, 'eth_getLogs', whole);
  const logs = (alone.json.result as unknown[]).length;
  assert.ok(logs > 1000, `${logs} logs in the whole range`);

  const began = performance.now();
  const finished: Record<string, number> = {};
  const timed = async (name: string, params: unknown) => {
    const answer = await call(served.base, 'eth_getLogs', params);
    finished[name] = performance.now() - began;
    return answer;
  };
  const longs = [timed('long', whole), timed('long', whole)];
  await new Promise((resolve) => setTimeout(resolve, 200));
  const [shortAnswer, ...longAnswers] = await Promise.all([timed('short', recent), ...longs]);
  for (const answer of longAnswers) assert.equal(answer.text, alone.text);
  const shortLogs = (shortAnswer.json.result as unknown[]).length;
  assert.ok(shortLogs >= 30 && shortLogs <= 60, `${shortLogs} logs in the short walk`);
  assert.ok(finished.short! < finished.long! / 2, `the short walk finished at ${Math.round(finished.short!)} ms, the long one at ${Math.round(finished.long!)} ms`);
});

test("an answer's first page is read at once, even while later pages wait for a place", async () => {
  const [last] = await database.db.query<{ index: string }>(sql`select max(r.index)::text as index from record_file r
    where exists (select 1 from contract_log l where l.consensus_timestamp between r.consensus_start and r.consensus_end)`);
  const oneBlock = [{ fromBlock: hex(last!.index), toBlock: hex(last!.index) }];
  const expected = (await call(served.base, 'eth_getLogs', oneBlock)).text;
  // the server's gate (one place), taken here, and a page waiting for it: a one-block answer does not wait behind them
  const gate = pageGateOf(slow, 1);
  const held = await gate.enter(0);
  const waiting = gate.enter(1);
  try {
    assert.deepEqual(gate.load, { active: 1, waiting: 1 });
    const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the one-block answer waited for a place')), 5000).unref());
    assert.equal((await Promise.race([call(served.base, 'eth_getLogs', oneBlock), late])).text, expected);
  } finally {
    held();
    (await waiting)();
  }
  assert.deepEqual(gate.load, { active: 0, waiting: 0 });
});
