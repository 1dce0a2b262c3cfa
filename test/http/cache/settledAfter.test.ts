/**
 * Which answers the routes declare settled (Page.settledAfter), rule by rule: a result by hash or
 * by the timestamp of a call at once; a result by transaction id once its consensus window has
 * passed; a network listing of results or logs once the network is past the end the request caps
 * its range at (never an open range, a lookup by transaction hash, or a sender named by address).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { routes } from '../../../src/app.ts';
import type { Db } from '../../../src/db/db.ts';
import type { Page } from '../../../src/http/route.ts';
import { appOn, get } from '../../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../../support/database.ts';
import { BASE_TS, FIRST_BLOCK, EVM_2002, STEP, insertFixtures } from '../../contracts/results/fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

const PAYER = 5001n;
const CONTRACT = 1001n;
const VALID_START = 1690000000_000000100n;
const CALL = 1690000001_000000000n;
const HASH = 'ab'.repeat(32);
const WINDOW = 35n * 60n * 1_000_000_000n;

async function insertCall(db: Db): Promise<void> {
  await db.query(
    `insert into contract_result (consensus_timestamp, contract_id, payer_account_id, sender_id, gas_limit, gas_used, transaction_nonce,
       transaction_result, call_result, function_parameters, transaction_hash)
     values ($1, $2, $3, $3, 100000, 50000, 0, 22, '\\x00', '\\x01', decode($4, 'hex'))`,
    [CALL.toString(), CONTRACT.toString(), PAYER.toString(), HASH],
  );
  await db.query(`insert into transaction (consensus_timestamp, type, result, payer_account_id, valid_start_ns, nonce) values ($1, 7, 22, $2, $3, 0)`, [
    CALL.toString(),
    PAYER.toString(),
    VALID_START.toString(),
  ]);
  for (const entity of [PAYER, CONTRACT]) {
    await db.query(`insert into contract_transaction (consensus_timestamp, entity_id, contract_ids, payer_account_id) values ($1, $2, $3, $4)`, [
      CALL.toString(),
      entity.toString(),
      [CONTRACT.toString()],
      PAYER.toString(),
    ]);
  }
  await db.query(
    `insert into contract_transaction_hash (consensus_timestamp, hash, payer_account_id, entity_id, transaction_result) values ($1, decode($2, 'hex'), $3, $4, 22)`,
    [CALL.toString(), HASH, PAYER.toString(), CONTRACT.toString()],
  );
}

let database: TestDatabase;
let app: ReturnType<typeof appOn>;
let captured: Page | undefined;

before(async () => {
  database = await openTestDatabase('embedded');
  await insertFixtures(database.db);
  await insertCall(database.db);
  // the routes as they are, with the page each handler returns kept for a look
  const capturing = routes.map((route) => ({
    ...route,
    handler: async (ctx: Parameters<typeof route.handler>[0]) => (captured = await route.handler(ctx)),
  }));
  app = appOn(database.db, { routes: capturing });
});
after(async () => {
  await app.close();
  await database.close();
});

/** The settledAfter of the page `url` answers with (which must be a success). */
async function settledAfter(url: string): Promise<bigint | undefined> {
  captured = undefined;
  const response = await get(app, url);
  assert.ok(response.statusCode === 200 || response.statusCode === 206, `${url}: ${response.statusCode} ${response.body}`);
  return captured!.settledAfter;
}

test('a result by hash, or by the timestamp of a call, is settled at once', async () => {
  assert.equal(await settledAfter(`/api/v1/contracts/results/0x${HASH}`), 0n);
  assert.equal(await settledAfter(`/api/v1/contracts/0.0.${CONTRACT}/results/${seconds(CALL)}`), 0n);
});

test('a result by transaction id is settled once no other transaction can take that id: at the end of its consensus window', async () => {
  const id = `0.0.${PAYER}-${VALID_START / 1_000_000_000n}-${VALID_START % 1_000_000_000n}`;
  assert.equal(await settledAfter(`/api/v1/contracts/results/${id}`), VALID_START + WINDOW);
});

const FIRST = seconds(BASE_TS);
const LAST = seconds(BASE_TS + 20n * STEP - 1n);

test('network results: settled after the end the request caps the range at', async () => {
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=gte:${FIRST}&timestamp=lte:${LAST}`), BASE_TS + 20n * STEP - 1n);
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=lt:${LAST}`), BASE_TS + 20n * STEP - 2n);
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=${seconds(BASE_TS)}`), BASE_TS);
  // a block: its end
  const block = BASE_TS + 10n * STEP;
  assert.equal(await settledAfter(`/api/v1/contracts/results?block.number=${FIRST_BLOCK + 1}`), block + 10n * STEP - 1n);
  // an empty page is as settled as a full one
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=gte:1&timestamp=lte:2`), 2_000_000_000n);
  // from=0.0.x is no lookup; an address is resolved through the entity table and left out
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=lte:${LAST}&from=0.0.2002`), BASE_TS + 20n * STEP - 1n);
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=lte:${LAST}&from=0x${EVM_2002}`), undefined);
});

test('network results: never settled when the range is open or its end dropped out', async () => {
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=gte:${FIRST}`), undefined);
  assert.equal(await settledAfter(`/api/v1/contracts/results?timestamp=gte:${FIRST}&timestamp=lte:0`), undefined);
  assert.equal(await settledAfter(`/api/v1/contracts/results`), undefined);
});

test('network logs: settled after the capped end of the range; open ranges and lookups by transaction hash never', async () => {
  assert.equal(await settledAfter(`/api/v1/contracts/results/logs?timestamp=gte:${FIRST}&timestamp=lte:${LAST}`), BASE_TS + 20n * STEP - 1n);
  assert.equal(await settledAfter(`/api/v1/contracts/results/logs?timestamp=gte:${FIRST}`), undefined);
  assert.equal(await settledAfter(`/api/v1/contracts/results/logs?transaction.hash=0x${HASH}&timestamp=lte:${LAST}`), undefined);
});

test('the other routes declare nothing', async () => {
  for (const url of [
    `/api/v1/contracts/0.0.${CONTRACT}`,
    `/api/v1/contracts/0.0.${CONTRACT}/results?timestamp=lte:${LAST}`,
    `/api/v1/contracts/0.0.${CONTRACT}/results/logs?timestamp=lte:${LAST}`,
    `/api/v1/contracts?limit=2`,
  ]) {
    assert.equal(await settledAfter(url), undefined, url);
  }
});
