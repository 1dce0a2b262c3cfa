/**
 * eth_getLogs over ranges longer than a window (src/rpc/logPages.ts): each statement reads one window
 * of consensus time at most, the windows shrinking after slow statements and growing after fast ones;
 * whatever the windows, the answer is the same logs in the same order as the range read at once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from '../../src/db/sql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { nextWidth } from '../../src/rpc/logPages.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, call, countingDb, delayingDb, serveRpc } from './support.ts';

let database: TestDatabase;
let plain: Served;
let slow: Served;
/** Statements on contract_log of the slow server; the next `slowLeft` of them wait 600 ms each. */
let logStatements = 0;
let slowLeft = 0;
let range: { first: string; last: string };

const LIMITS = { HIERO_MIRROR_REST_RPC_TIMESTAMPRANGELIMIT: '0', HIERO_MIRROR_REST_RPC_BLOCKRANGELIMIT: '100000000', HIERO_MIRROR_REST_RPC_PAGESIZE: '7' };
const hex = (n: string) => `0x${BigInt(n).toString(16)}`;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  [range] = (await database.db.query<{ first: string; last: string }>(sql`select min(index)::text as first, max(index)::text as last from record_file`)) as [typeof range];
  plain = await serveRpc(database.db, LIMITS);
  const counting = countingDb(database.db, (text) => {
    if (/from contract_log/.test(text)) logStatements++;
  });
  const delaying = delayingDb(counting, (text) => (/from contract_log/.test(text) && slowLeft > 0 ? (slowLeft--, 600) : 0));
  // statements over 500 ms (a quarter of the timeout) make the next window a quarter as long
  slow = await serveRpc(delaying, { ...LIMITS, HIERO_MIRROR_REST_DB_POOL_STATEMENTTIMEOUT: '2000' });
});
after(async () => {
  await plain?.close();
  await slow?.close();
  await database?.close();
});

test('window widths: doubled after a fast statement, a quarter after a slow one, never under a second', () => {
  const day = 86_400_000_000_000n;
  assert.equal(nextWidth(day, 10, 20_000), 2n * day);
  assert.equal(nextWidth(day, 1000, 20_000), day);
  assert.equal(nextWidth(day, 6000, 20_000), day / 4n);
  assert.equal(nextWidth(2_000_000_000n, 6000, 20_000), 1_000_000_000n);
});

test('the whole demo range (5 days) in windows: the same logs in the same order as read at once', async () => {
  const whole = { fromBlock: hex(range.first), toBlock: hex(range.last) };
  const expected = await database.db.query<{ t: string; i: number }>(sql`select consensus_timestamp::text as t, index as i from contract_log order by consensus_timestamp, index`);
  const fast = await call(plain.base, 'eth_getLogs', [whole]);
  assert.equal(fast.json.result.length, expected.length);
  const [densest, second] = await database.db.query<{ a: string }>(sql`select '0x' || encode(e.evm_address, 'hex') as a from contract_log l join entity e on e.id = l.contract_id
    where e.evm_address is not null group by e.evm_address order by count(*) desc limit 2`);
  const topic0 = fast.json.result.find((l: { address: string }) => l.address === densest!.a).topics[0];
  for (const filter of [whole, { ...whole, address: [second!.a, densest!.a] }, { ...whole, address: densest!.a, topics: [topic0] }]) {
    const once = await call(plain.base, 'eth_getLogs', [filter]);
    logStatements = 0;
    slowLeft = 6;
    const windowed = await call(slow.base, 'eth_getLogs', [filter]);
    assert.equal(windowed.status, 200);
    assert.ok(once.json.result.length > 0, JSON.stringify(filter));
    assert.equal(windowed.text, once.text, `the same answer for ${JSON.stringify(filter)}`);
    // six slow statements: windows down to 21 s, then doubled, over 5 days: more than 15 statements
    assert.ok(logStatements > 15, `${logStatements} statements for ${JSON.stringify(filter)}`);
  }
});
