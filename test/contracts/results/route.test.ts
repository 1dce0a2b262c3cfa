/**
 * GET /api/v1/contracts/{id}/results through the HTTP stack on every test backend: resolution
 * order, block filters, `from` lookups, the protobuf `from` fallback and link details.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type JsonReply, type TestApp, openTestApp } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { ALIAS, EVM_1001, EVM_2002, EVM_NULL_DELETED, EVM_SHARED, FIRST_BLOCK, generate, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

const data = generate();

interface Body {
  results: Array<Record<string, unknown>>;
  links: { next: string | null };
  _status?: { messages: Array<{ message: string }> };
}

for (const backend of testBackends()) {
  describe(`results endpoint (${backend})`, () => {
    let t: TestApp;

    before(async () => {
      t = await openTestApp(backend, (db) => insertFixtures(db, data));
    });

    after(() => t?.close());

    const get = (url: string): Promise<JsonReply<Body>> => t.getJson<Body>(url);

    const errors = (body: Body) => body._status!.messages.map((m) => m.message);

    test('checks run in order: path syntax, query, contract, from address, block', async () => {
      const bad = await get('/api/v1/contracts/abc/results?limit=0');
      assert.equal(bad.status, 400);
      assert.deepEqual(errors(bad.body), ['Invalid parameter: contractid']);
      assert.equal(bad.headers['cache-control'], undefined);
      // "results" is an ordinary (invalid) contract id here, in any case
      for (const id of ['results', 'RESULTS']) {
        const r = await get(`/api/v1/contracts/${id}/results`);
        assert.deepEqual([r.status, errors(r.body)], [400, ['Invalid parameter: contractid']]);
      }
      const unknownCreate2 = `0x${'5'.repeat(40)}`;
      assert.deepEqual(errors((await get(`/api/v1/contracts/${unknownCreate2}/results?limit=0`)).body), ['Invalid parameter: limit']);
      const notFound = await get(`/api/v1/contracts/${unknownCreate2}/results?from=0x${'6'.repeat(40)}`);
      assert.deepEqual([notFound.status, errors(notFound.body)], [404, [`No contract with the given evm address ${unknownCreate2} has been found.`]]);
      const fromMissing = await get(`/api/v1/contracts/1001/results?from=0x${'6'.repeat(40)}&block.number=99999`);
      assert.deepEqual([fromMissing.status, errors(fromMissing.body)], [404, ['Not found']]);
      const deletedNull = await get(`/api/v1/contracts/1001/results?from=${EVM_NULL_DELETED}`);
      assert.equal(deletedNull.status, 404);
      const shared = await get(`/api/v1/contracts/1001/results?from=${EVM_SHARED}`);
      assert.deepEqual([shared.status, errors(shared.body)], [400, [`Invalid parameter: from - more than one entity has the evm address 0x${EVM_SHARED}`]]);
      // a missing block is an empty page, before transaction.index is looked at
      const noBlock = await get('/api/v1/contracts/1001/results?block.number=99999&transaction.index=2147483648');
      assert.deepEqual([noBlock.status, noBlock.body], [200, { results: [], links: { next: null } }]);
      const bigIndex = await get(`/api/v1/contracts/1001/results?block.number=${FIRST_BLOCK}&transaction.index=2147483648`);
      assert.deepEqual([bigIndex.status, errors(bigIndex.body)], [400, ['Invalid parameter: transaction.index']]);
    });

    test('unknown contracts list nothing; id 0 lists every contract', async () => {
      for (const id of ['0.0.99999', '-1', '274877906945', '9223372036854775807']) {
        const r = await get(`/api/v1/contracts/${id}/results`);
        assert.deepEqual([r.status, r.body], [200, { results: [], links: { next: null } }], id);
      }
      const all = await get('/api/v1/contracts/0.0.0/results?internal=true&limit=100&order=asc');
      const first = [...data.results].sort((a, b) => (a.ts < b.ts ? -1 : 1)).slice(0, 100);
      assert.deepEqual(all.body.results.map((r) => r.timestamp), first.map((r) => seconds(r.ts)));
      assert.deepEqual(new Set(all.body.results.map((r) => r.contract_id)), new Set(['0.0.1001', '0.0.1002', '0.0.1003']));
      for (const r of all.body.results) {
        assert.equal(r.address, r.contract_id === '0.0.1001' ? `0x${EVM_1001}` : r.to);
      }
      assert.equal(all.body.links.next, `/api/v1/contracts/0.0.0/results?internal=true&limit=100&order=asc&timestamp=gt:${seconds(first[99]!.ts)}`);
    });

    test('from: the sender, else the alias from function_result, else null', async () => {
      const r = await get('/api/v1/contracts/0/results?internal=true&limit=100');
      const byTs = new Map(data.results.map((x) => [seconds(x.ts), x]));
      let aliases = 0;
      for (const item of r.body.results) {
        const row = byTs.get(String(item.timestamp))!;
        let want: string | null = null;
        if (row.sender !== null && row.sender !== 0n) want = `0x${row.sender.toString(16).padStart(40, '0')}`;
        else if (row.sender === null && row.functionResult?.toString('hex').includes(ALIAS)) want = `0x${ALIAS}`;
        assert.equal(item.from, want, String(item.timestamp));
        if (want === `0x${ALIAS}`) aliases++;
      }
      assert.ok(aliases > 0);
    });

    test('block filters: number (decimal or hex), hash prefix (case-sensitive), transaction.index', async () => {
      const block = data.blocks[3]!;
      const inBlock = data.results.filter((r) => r.ts >= block.start && r.ts <= block.end && r.nonce === 0 && r.contract === 1001n);
      const want = inBlock.map((r) => seconds(r.ts)).reverse();
      for (const q of [`block.number=${block.index}`, `block.number=0x${block.index.toString(16)}`, `block.number=eq:${block.index}`,
        `block.hash=${block.hash}`, `block.hash=0x${block.hash.slice(0, 64)}`, `block.hash=eq:${block.hash.slice(0, 64)}`]) {
        const r = await get(`/api/v1/contracts/1001/results?${q}`);
        assert.deepEqual(r.body.results.map((x) => x.timestamp), want, q);
      }
      const upper = await get(`/api/v1/contracts/1001/results?block.hash=${block.hash.toUpperCase()}`);
      assert.deepEqual(upper.body, { results: [], links: { next: null } });
      const tx = inBlock[0]!.transactionIndex;
      const byIndex = await get(`/api/v1/contracts/1001/results?block.number=${block.index}&transaction.index=${tx}&transaction.index=99`);
      assert.deepEqual(byIndex.body.results.map((x) => x.timestamp), inBlock.filter((r) => r.transactionIndex === tx).map((r) => seconds(r.ts)));
    });

    test('from by address, id and comparison', async () => {
      const want = data.results.filter((r) => r.contract === 1001n && r.nonce === 0 && r.sender === 2002n).map((r) => seconds(r.ts)).reverse().slice(0, 25);
      for (const from of [`0x${EVM_2002}`, EVM_2002.toUpperCase(), '0.0.2002', '2002', '0x00000000000000000000000000000000000007d2']) {
        const r = await get(`/api/v1/contracts/0x${EVM_1001}/results?from=${from}`);
        assert.deepEqual(r.body.results.map((x) => x.timestamp), want, from);
      }
      const gt = await get('/api/v1/contracts/1001/results?from=gt:2001&from=lt:2003&limit=100');
      assert.ok(gt.body.results.length > 0 && gt.body.results.every((x) => x.from === '0x00000000000000000000000000000000000007d2'));
    });

    test('links keep the request as typed; a full last page still links', async () => {
      const r = await get('/API/V1/CONTRACTS/0x00000000000000000000000000000000000003E9/RESULTS/?LIMIT=00002&order=ASC&Timestamp=gte:1&internal=TRUE&internal=false');
      assert.equal(r.status, 200);
      const last = r.body.results[1]!.timestamp;
      assert.equal(r.body.links.next, `/API/V1/CONTRACTS/0x00000000000000000000000000000000000003E9/RESULTS?limit=00002&order=asc&internal=TRUE&internal=false&timestamp=gt:${last}`);
      const total = data.results.filter((x) => x.contract === 1003n && x.nonce === 0).length;
      const full = await get(`/api/v1/contracts/1003/results?limit=${total}`);
      assert.equal(full.body.results.length, total);
      assert.notEqual(full.body.links.next, null);
      const after = await get(full.body.links.next!);
      assert.deepEqual(after.body, { results: [], links: { next: null } });
      // two plain timestamps: the link repeats the request (reference quirk)
      const ts = seconds(data.results[0]!.ts);
      const twice = await get(`/api/v1/contracts/0/results?limit=1&order=asc&timestamp=${ts}&timestamp=${ts}&internal=true`);
      assert.equal(twice.body.links.next, `/api/v1/contracts/0/results?limit=1&order=asc&timestamp=${ts}&timestamp=${ts}&internal=true`);
    });

    test('contradictory or out-of-range filters give an empty page', async () => {
      for (const q of ['timestamp=lt:1&timestamp=gt:2', 'timestamp=gt:9223372036.854775807', 'from=gt:0.0.5000&from=lt:0.0.4000']) {
        const r = await get(`/api/v1/contracts/1001/results?${q}`);
        assert.deepEqual([r.status, r.body], [200, { results: [], links: { next: null } }], q);
      }
    });
  });
}
