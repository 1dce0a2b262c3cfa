/**
 * GET /api/v1/contracts/results/{transactionIdOrHash} and /contracts/{id}/results/{timestamp} on
 * every test backend: resolution by hash and by transaction id with nonce, the excluded results,
 * 206 for a partial result, and the answers where the reference fails (compatibility rows 10-14).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../../src/db/db.ts';
import { type JsonReply, type TestApp, openTestApp } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { seconds } from '../../support/timestamps.ts';

const PAYER = 5001n;
const CONTRACT = 1001n;
const VALID_START = 1700000000_000000100n;
const PARENT = 1700000001_000000000n; // the parent call (nonce 0)
const CHILD = 1700000001_000000001n; // its child (nonce 1), a result of 0.0.359
const PARTIAL = 1700000002_000000000n; // a call without call_result
const DUPLICATE = 1700000003_000000000n; // DUPLICATE_TRANSACTION of the same hash
const HASH = 'ab'.repeat(32);

async function insert(db: Db): Promise<void> {
  const row = (ts: bigint, contract: bigint, nonce: number, result: number, callResult: string | null) =>
    db.query(
      `insert into contract_result (consensus_timestamp, contract_id, payer_account_id, sender_id, gas_limit, gas_used, transaction_nonce,
         transaction_result, call_result, function_parameters, transaction_hash)
       values ($1, $2, $3, $3, 100000, 50000, $4, $5, decode($6, 'hex'), '\\x01', decode($7, 'hex'))`,
      [ts.toString(), contract.toString(), PAYER.toString(), nonce, result, callResult, HASH],
    );
  const transaction = (ts: bigint, nonce: number, type: number, result: number) =>
    db.query(
      `insert into transaction (consensus_timestamp, type, result, payer_account_id, valid_start_ns, nonce)
       values ($1, $2, $3, $4, $5, $6)`,
      [ts.toString(), type, result, PAYER.toString(), VALID_START.toString(), nonce],
    );
  const involved = (ts: bigint, entity: bigint, contracts: bigint[]) =>
    db.query(`insert into contract_transaction (consensus_timestamp, entity_id, contract_ids, payer_account_id) values ($1, $2, $3, $4)`, [
      ts.toString(),
      entity.toString(),
      contracts.map(String),
      PAYER.toString(),
    ]);
  await row(PARENT, CONTRACT, 0, 22, '00');
  await row(CHILD, 359n, 1, 22, '01');
  await transaction(PARENT, 0, 7, 22);
  await transaction(CHILD, 1, 14, 22);
  for (const ts of [PARENT, CHILD]) {
    await involved(ts, PAYER, [CONTRACT, 359n]);
    await involved(ts, CONTRACT, [CONTRACT, 359n]);
  }
  await row(PARTIAL, CONTRACT, 0, 22, null);
  await involved(PARTIAL, CONTRACT, [CONTRACT]);
  await db.query(
    `insert into contract_transaction_hash (consensus_timestamp, hash, payer_account_id, entity_id, transaction_result)
     values ($1, decode($2, 'hex'), $3, $4, 11), ($5, decode($2, 'hex'), $3, $4, 22)`,
    [DUPLICATE.toString(), HASH, PAYER.toString(), CONTRACT.toString(), PARENT.toString()],
  );
}

interface Body {
  timestamp?: string;
  contract_id?: string;
  _status?: { messages: Array<{ message: string }> };
}

const id = (ns: bigint, nanos = (ns % 1_000_000_000n).toString()) => `0.0.${PAYER}-${ns / 1_000_000_000n}-${nanos}`;

for (const backend of testBackends()) {
  describe(`one call in full (${backend})`, () => {
    let t: TestApp;
    before(async () => {
      t = await openTestApp(backend, insert);
    });
    after(() => t?.close());
    const get = (url: string): Promise<JsonReply<Body>> => t.getJson<Body>(url);
    const messages = (r: JsonReply<Body>) => r.body._status?.messages.map((m) => m.message);

    test('by hash: the earliest result that is not a duplicate; nonce is ignored', async () => {
      for (const url of [`/api/v1/contracts/results/0x${HASH}`, `/api/v1/contracts/results/${HASH.toUpperCase()}?nonce=1`]) {
        const r = await get(url);
        assert.equal(r.status, 200, url);
        assert.equal(r.body.timestamp, seconds(PARENT));
        assert.equal(r.headers['cache-control'], 'public, max-age=600');
      }
      assert.equal((await get(`/api/v1/contracts/results/0x${'cd'.repeat(32)}`)).status, 404);
    });

    test('by transaction id: nonce selects the child; eq: is an operator, not text', async () => {
      assert.equal((await get(`/api/v1/contracts/results/${id(VALID_START, '000000100')}`)).body.timestamp, seconds(PARENT));
      const child = await get(`/api/v1/contracts/results/${id(VALID_START, '100')}?nonce=1`);
      assert.deepEqual([child.status, child.body.contract_id], [200, '0.0.359']);
      assert.equal((await get(`/api/v1/contracts/results/${id(VALID_START, '100')}?nonce=eq:1`)).body.timestamp, seconds(CHILD));
      assert.equal((await get(`/api/v1/contracts/results/${id(VALID_START, '100')}?nonce=2`)).status, 404);
    });

    test('client errors are 400s with the reference messages, never 5xx', async () => {
      assert.deepEqual(messages(await get(`/api/v1/contracts/results/${id(VALID_START)}?nonce[gt]=1`)), ['Invalid parameter: nonce']);
      assert.deepEqual(messages(await get(`/api/v1/contracts/results/${id(VALID_START)}?foo=1&foo=2&nonce=x`)), [
        'Unknown query parameter: foo',
        'Invalid parameter: nonce',
      ]);
      // a valid start whose lookup window passes the int64 range: nothing there, not an outage
      assert.equal((await get(`/api/v1/contracts/results/0.0.${PAYER}-9223372036-1`)).status, 404);
      // a valid start itself beyond the int64 range (ten digits of seconds fit, their nanoseconds do
      // not): nothing there either, on the call and on its actions (was 503: found by npm run bench -- fuzz)
      for (const late of ['9999999999-999999999', '9223372037-0', '9223372036-854775808']) {
        assert.equal((await get(`/api/v1/contracts/results/0.0.${PAYER}-${late}`)).status, 404, late);
        assert.equal((await get(`/api/v1/contracts/results/0.0.${PAYER}-${late}/actions`)).status, 404, `${late}/actions`);
      }
      assert.deepEqual(messages(await get('/api/v1/contracts/results/results')), ['Invalid parameter: contractid']);
      assert.deepEqual(messages(await get('/api/v1/contracts/results/0.0.274877906944-1-1')), ['Invalid entity ID "0.0.274877906944"']);
    });

    test('by timestamp: any involved entity; 206 without call_result; 404 where nothing is involved', async () => {
      const byPayer = await get(`/api/v1/contracts/${PAYER}/results/${seconds(PARENT)}`);
      assert.deepEqual([byPayer.status, byPayer.body.contract_id], [200, '0.0.1001']);
      const partial = await get(`/api/v1/contracts/0.0.${CONTRACT}/results/${seconds(PARTIAL)}`);
      assert.equal(partial.status, 206);
      assert.equal(partial.headers['cache-control'], 'public, max-age=600');
      assert.equal((await get(`/api/v1/contracts/0.0.2002/results/${seconds(PARENT)}`)).status, 404);
      assert.equal((await get(`/api/v1/contracts/0.0.${CONTRACT}/results/1e5`)).status, 404);
      assert.deepEqual(messages(await get(`/api/v1/contracts/0.0.${CONTRACT}/results/9999999999`)), ['Invalid parameter: timestamp']);
      assert.deepEqual(messages(await get(`/api/v1/contracts/0.0.${CONTRACT}/results/${seconds(PARENT)}?index=1&index=2`)), [
        'Unknown query parameter: index',
      ]);
    });
  });
}
