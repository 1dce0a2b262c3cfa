/**
 * GET /api/v1/contracts/results/{transactionIdOrHash}/actions through the HTTP stack on every test
 * backend: the view's keys in the reference's order, paging on index by links, the 400s of its
 * parameters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, openTestApp } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { loadSpecSetup } from '../../support/specSetup.ts';

interface Body {
  actions: Array<Record<string, unknown>>;
  links: { next: string | null };
  _status?: { messages: Array<{ message: string }> };
}

/** The reference writes an action's keys in alphabetical order. */
const KEYS = ['call_depth', 'call_operation_type', 'call_type', 'caller', 'caller_type', 'from', 'gas', 'gas_used', 'index', 'input', 'recipient', 'recipient_type', 'result_data', 'result_data_type', 'timestamp', 'to', 'value'];
const BY_ID = '/api/v1/contracts/results/0.0.5001-1676540001-234390005/actions';
const BY_HASH = '/api/v1/contracts/results/0x9db63968721fc76815d11b0b97734669bf88ae3810e07c199924553f0548eb98/actions';

for (const backend of testBackends()) {
  describe(`contract actions (${backend})`, () => {
    let t: TestApp;
    // the actions of the reference's spec: two of them in the transaction 0.0.5001-1676540001-234390005
    before(async () => {
      t = await openTestApp(backend, (db) => loadSpecSetup(db, 'specs-extra/contracts-result-actions/limit.json'));
    });
    after(() => t?.close());

    const walk = async (first: string) => {
      const indexes: unknown[] = [];
      const links: string[] = [];
      let url: string | null = first;
      while (url !== null) {
        const { status, body }: { status: number; body: Body } = await t.getJson<Body>(url);
        assert.equal(status, 200, url);
        for (const action of body.actions) {
          assert.deepEqual(Object.keys(action), KEYS, url);
          indexes.push(action.index);
        }
        url = body.links.next;
        if (url !== null) links.push(url);
        assert.ok(links.length <= 5, `no end of links: ${links.join(' ')}`);
      }
      return { indexes, links };
    };

    test('an item has the keys of the reference in its order; by id and by hash the same actions', async () => {
      const byId = await t.getJson<Body>(BY_ID);
      assert.equal(byId.status, 200);
      assert.ok(byId.body.actions.length >= 2);
      for (const action of byId.body.actions) assert.deepEqual(Object.keys(action), KEYS);
      assert.equal(byId.body.links.next, null);
      assert.deepEqual((await t.getJson<Body>(BY_HASH)).body, byId.body);
    });

    test('pages on index by links, ascending and descending', async () => {
      const all = (await t.getJson<Body>(BY_ID)).body.actions.map((a) => a.index);
      const asc = await walk(`${BY_ID}?limit=1`);
      assert.deepEqual(asc.indexes, all);
      assert.equal(asc.links[0], `${BY_ID}?limit=1&index=gt:${String(all[0])}`);
      const desc = await walk(`${BY_ID}?limit=1&order=desc`);
      assert.deepEqual(desc.indexes, [...all].reverse());
      assert.equal(desc.links[0], `${BY_ID}?limit=1&order=desc&index=lt:${String(all.at(-1))}`);
    });

    test('parameters: the reference 400s, every message in its order', async () => {
      const messages = async (url: string) => {
        const { status, body } = await t.getJson<Body>(url);
        return [status, ...(body._status?.messages.map((m) => m.message) ?? [])];
      };
      assert.deepEqual(await messages(`${BY_ID}?order=b&limit=c&nonce=2`), [400, 'Invalid parameter: order', 'Invalid parameter: limit', 'Unknown query parameter: nonce']);
      assert.deepEqual(await messages(`${BY_ID}?index=x`), [400, 'Invalid parameter: index']);
      assert.deepEqual(await messages('/api/v1/contracts/results/0.0.5001-1676540001-234390006/actions'), [404, 'Not found']);
    });
  });
}
