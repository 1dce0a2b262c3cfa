/**
 * eth_getLogs priced before the work (src/rpc/methods.ts, params.ts): a filter over rpc.maxAddresses
 * addresses, over 4 topics or over rpc.maxTopicValues values in a topic position is refused by its
 * count, before any statement and before any address is parsed, whatever else it asks for.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, call, countingDb, serveRpc, unprefixed } from './support.ts';

let database: TestDatabase;
let served: Served;
const statements: string[] = [];

before(async () => {
  database = await openTestDatabase('embedded');
  served = await serveRpc(countingDb(database.db, (text) => statements.push(text)));
});
after(async () => {
  await served?.close();
  await database?.close();
});

const HASH = `0x${'ab'.repeat(32)}`;
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

test('21,500 addresses (a body of about 1 MB): refused by their count, no statement run, four at once as one', async () => {
  const addresses = Array.from({ length: 21_500 }, (_, n) => address(n + 5000));
  statements.length = 0;
  const answers = await Promise.all(Array.from({ length: 4 }, () => call(served.base, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x5000', address: addresses }])));
  for (const res of answers) {
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32602);
    assert.equal(unprefixed(res.json.error.message), "Invalid parameter 'address' for FilterObject: Expected at most 1000 addresses, got 21500");
  }
  assert.deepEqual(statements, [], 'not one statement: neither the blocks nor the addresses were read');
  // so are the filters and the subscriptions' (eth_newFilter here)
  const filter = await call(served.base, 'eth_newFilter', [{ address: addresses.slice(0, 1001) }]);
  assert.equal(unprefixed(filter.json.error.message), "Invalid parameter 'address' for FilterObject: Expected at most 1000 addresses, got 1001");
  assert.deepEqual(statements, []);
});

test('more than 4 topics, or an OR-list over rpc.maxTopicValues: an error, not an empty answer', async () => {
  statements.length = 0;
  const five = await call(served.base, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1', topics: [null, null, null, null, HASH] }]);
  assert.equal(five.status, 400);
  assert.deepEqual([five.json.error.code, unprefixed(five.json.error.message)], [-32602, "Invalid parameter 'topics' for FilterObject: Expected at most 4 topics, got 5"]);
  const wide = await call(served.base, 'eth_getLogs', [{ topics: [null, Array.from({ length: 101 }, () => HASH)] }]);
  assert.deepEqual(
    [wide.json.error.code, unprefixed(wide.json.error.message)],
    [-32602, "Invalid parameter 'topics' for FilterObject: Expected at most 100 values in topic position 1, got 101"],
  );
  assert.deepEqual(statements, []);
});
