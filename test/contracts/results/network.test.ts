/**
 * GET /api/v1/contracts/results through the HTTP stack on every test backend: what the spec files
 * do not cover (raw path spellings, the timestamp quirks of 1.5, block containment, Ethereum data
 * keyed by timestamp, an empty Ethereum value, bindTimestampRange paging).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../../src/db/db.ts';
import { type JsonReply, type TestApp, appOn, getJson, openTestApp, testConfig } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { BASE_TS, FIRST_BLOCK, PER_BLOCK, STEP, generate, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

const data = generate();
/** The bound range's width of the bindTimestampRange tests (5 s: 20 results). */
const WIDTH = 5_000_000_000n;
const KEYS = [
  'address', 'amount', 'bloom', 'call_result', 'contract_id', 'created_contract_ids', 'error_message', 'from',
  'function_parameters', 'gas_consumed', 'gas_limit', 'gas_used', 'timestamp', 'to', 'hash', 'block_hash', 'block_number',
  'result', 'transaction_index', 'status', 'failed_initcode', 'access_list', 'block_gas_used', 'chain_id', 'gas_price',
  'max_fee_per_gas', 'max_priority_fee_per_gas', 'r', 's', 'type', 'v', 'nonce',
];
/** Top-level results (nonce 0), newest first. */
const topLevel = data.results.filter((r) => r.nonce === 0).sort((a, b) => (a.ts > b.ts ? -1 : 1));
const [ETH_EMPTY, ETH_VALUE] = [topLevel[0]!, topLevel[1]!];

async function fill(db: Db): Promise<void> {
  await insertFixtures(db, data);
  const eth = `insert into ethereum_transaction (consensus_timestamp, data, gas_limit, hash, max_gas_allowance, nonce,
      payer_account_id, signature_r, signature_s, type, value, chain_id, to_address)
    values ($1, '\\x00', 50000, '\\x01', 0, 7, $2, '\\x0a', '\\x0b', 2, $3, '\\x012a', $4)`;
  await db.query(eth, [ETH_EMPTY.ts.toString(), '5000', Buffer.alloc(0), null]);
  await db.query(eth, [ETH_VALUE.ts.toString(), '5000', Buffer.from('3365e35901916000', 'hex'), Buffer.from('11'.repeat(20), 'hex')]);
  // an Ethereum transaction at a result's timestamp but of a payer no result of the page has is not read
  await db.query(eth, [topLevel[2]!.ts.toString(), '4999', Buffer.from('05', 'hex'), null]);
}

interface Body {
  results: Array<Record<string, unknown>>;
  links: { next: string | null };
  _status?: { messages: Array<{ message: string }> };
}

for (const backend of testBackends()) {
  describe(`network results (${backend})`, () => {
    let t: TestApp;
    before(async () => {
      t = await openTestApp(backend, fill);
    });
    after(() => t?.close());

    const get = (url: string): Promise<JsonReply<Body>> => t.getJson<Body>(url);
    const errors = (body: Body) => body._status!.messages.map((m) => m.message);
    const timestamps = (body: Body) => body.results.map((r) => r.timestamp);

    test('the raw path: lower-case results only; an encoded one is no route', async () => {
      const ok = await get('/api/v1/contracts/results/?limit=1');
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['cache-control'], 'public, max-age=10');
      for (const path of ['/api/v1/contracts/RESULTS', '/api/v1/contracts/Results?limit=1', '/api/v1/contracts/RE%53ULTS']) {
        const r = await get(path);
        assert.deepEqual([r.status, errors(r.body)], [400, ['Invalid parameter: contractid']], path);
      }
      const encoded = await get('/api/v1/contracts/%72esults');
      assert.deepEqual([encoded.status, errors(encoded.body)], [404, ['Not found']]);
    });

    test('every contract, newest first, 32 keys in order, internal results only on request', async () => {
      const r = await get('/api/v1/contracts/results?limit=100');
      assert.deepEqual(timestamps(r.body), topLevel.slice(0, 100).map((x) => seconds(x.ts)));
      for (const item of r.body.results) assert.deepEqual(Object.keys(item), KEYS);
      assert.equal(r.body.links.next, `/api/v1/contracts/results?limit=100&timestamp=lt:${seconds(topLevel[99]!.ts)}`);
      const all = await get('/api/v1/contracts/results?internal=true&limit=100&order=asc');
      const sorted = [...data.results].sort((a, b) => (a.ts < b.ts ? -1 : 1));
      assert.deepEqual(timestamps(all.body), sorted.slice(0, 100).map((x) => seconds(x.ts)));
    });

    test('contradictory ranges and zero bounds ignore the timestamp filter; upper bounds are clamped', async () => {
      const plain = timestamps((await get('/api/v1/contracts/results?limit=5')).body);
      const mid = seconds(topLevel[50]!.ts);
      for (const query of [`timestamp=gt:${mid}&timestamp=lt:${mid}`, 'timestamp=lt:0.000000001', 'timestamp=lte:0', 'timestamp=lt:9999999999']) {
        const r = await get(`/api/v1/contracts/results?limit=5&${query}`);
        assert.deepEqual([r.status, timestamps(r.body)], [200, plain], query);
      }
      // an eq with a contradictory range: the eq alone
      const eq = await get(`/api/v1/contracts/results?timestamp=${mid}&timestamp=gt:${mid}&timestamp=lt:${mid}`);
      assert.deepEqual(timestamps(eq.body), [mid]);
      for (const query of ['timestamp=gt:9999999999', 'timestamp=9999999999', 'timestamp=gte:9223372036.854775808']) {
        const r = await get(`/api/v1/contracts/results?${query}`);
        assert.deepEqual([r.status, errors(r.body)], [400, ['Invalid parameter: timestamp']], query);
      }
    });

    test('a block and a timestamp outside it: every result', async () => {
      const later = seconds(BASE_TS + 200n * STEP);
      const r = await get(`/api/v1/contracts/results?block.number=${FIRST_BLOCK}&timestamp=gt:${later}&limit=5`);
      assert.deepEqual(timestamps(r.body), topLevel.slice(0, 5).map((x) => seconds(x.ts)));
      const inBlock = await get(`/api/v1/contracts/results?block.number=${FIRST_BLOCK + 1}&limit=100`);
      const expected = topLevel.filter((x) => x.ts >= BASE_TS + 10n * STEP && x.ts < BASE_TS + 20n * STEP);
      assert.deepEqual(timestamps(inBlock.body), expected.map((x) => seconds(x.ts)));
    });

    test('each result gets the record file containing it, none in a gap', async () => {
      const r = await get('/api/v1/contracts/results?internal=true&limit=100&order=asc');
      for (const item of r.body.results) {
        const i = Number((BigInt(String(item.timestamp).replace('.', '')) - BASE_TS) / STEP);
        const b = Math.floor(i / PER_BLOCK);
        if (b === 5 || b === 6) assert.deepEqual([item.block_hash, item.block_number, item.block_gas_used], ['0x', null, null]);
        else assert.deepEqual([item.block_number, (item.block_hash as string).slice(0, 4)], [FIRST_BLOCK + b, `0x${b.toString(16).padStart(2, '0')}`]);
      }
    });

    test('Ethereum data of the page; an empty value is amount 0; amounts beyond 2^53 exact', async () => {
      const r = await get('/api/v1/contracts/results?limit=3');
      const [empty, valued, otherPayer] = r.body.results;
      assert.deepEqual([empty!.amount, empty!.nonce, empty!.type, empty!.chain_id, empty!.r, empty!.access_list], [0, 7, 2, '0x12a', '0x0a', '0x']);
      assert.match(String(empty!.to), /^0x0{30}/);
      assert.equal(valued!.to, `0x${'11'.repeat(20)}`);
      const raw = await t.get('/api/v1/contracts/results?limit=3');
      assert.match(raw.body, /"amount":3703616240000000000,/);
      assert.deepEqual([otherPayer!.amount, otherPayer!.nonce, otherPayer!.type], [0, null, null]);
    });
  });

  describe(`network results with bindTimestampRange (${backend})`, () => {
    let t: TestApp;
    const base = testConfig();
    const config = { ...base, query: { ...base.query, bindTimestampRange: true, maxTransactionsTimestampRangeNs: WIDTH } };
    const now = BASE_TS + 60n * STEP;
    before(async () => {
      t = await openTestApp(backend, async (db) => {
        await insertFixtures(db, data);
        await db.query(`insert into transaction (consensus_timestamp, payer_account_id, type, result, valid_start_ns, charged_tx_fee,
            max_fee, nonce, transaction_hash, index, initial_balance, scheduled, valid_duration_seconds)
          values ($1, 5000, 7, 22, 0, 0, 0, 0, '\\x01', 0, 0, false, 120)`, [(BASE_TS + 5n * STEP).toString()]);
      }, { config, clock: () => now });
    });
    after(() => t?.close());

    test('an open range is bound to [first transaction, now] and cut; a short page links on from the cut', async () => {
      const desc = await t.getJson<Body>('/api/v1/contracts/results?internal=true');
      const window = data.results.filter((r) => r.ts <= now && r.ts > now - WIDTH).sort((a, b) => (a.ts > b.ts ? -1 : 1));
      assert.deepEqual(desc.body.results.map((r) => r.timestamp), window.map((r) => seconds(r.ts)));
      assert.equal(desc.body.links.next, `/api/v1/contracts/results?internal=true&timestamp=lt:${seconds(now - WIDTH + 1n)}`);
      const asc = await t.getJson<Body>('/api/v1/contracts/results?internal=true&order=asc&limit=100');
      const first = BASE_TS + 5n * STEP;
      const ascWindow = data.results.filter((r) => r.ts >= first && r.ts < first + WIDTH).sort((a, b) => (a.ts < b.ts ? -1 : 1));
      assert.deepEqual(asc.body.results.map((r) => r.timestamp), ascWindow.map((r) => seconds(r.ts)));
      assert.equal(asc.body.links.next, `/api/v1/contracts/results?internal=true&order=asc&limit=100&timestamp=gt:${seconds(first + WIDTH - 1n)}`);
      // an eq is never bound; no rows: no link even when cut
      const eq = await t.getJson<Body>(`/api/v1/contracts/results?timestamp=${seconds(data.results[0]!.ts)}&internal=true`);
      assert.equal(eq.body.results.length, 1);
      const none = await t.getJson<Body>('/api/v1/contracts/results?from=0.0.9999');
      assert.deepEqual(none.body, { results: [], links: { next: null } });
    });
  });
}

test('the app answers with the clock it is given', async () => {
  const { openTestDatabase } = await import('../../support/database.ts');
  const database = await openTestDatabase('embedded');
  const base = testConfig();
  const app = appOn(database.db, { config: { ...base, query: { ...base.query, bindTimestampRange: true } }, clock: () => 5_000_000_000n });
  try {
    // now = 5 s: a lower bound after it leaves nothing, even without data
    const r = await getJson(app, '/api/v1/contracts/results?timestamp=gt:6');
    assert.deepEqual(r.body, { results: [], links: { next: null } });
  } finally {
    await app.close();
    await database.close();
  }
});
