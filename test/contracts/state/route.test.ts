/**
 * GET /api/v1/contracts/{id}/state through the HTTP stack on every test backend: the view's keys in
 * the reference's order, paging on slot by links, the 400s of its parameters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, openTestApp } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { loadSpecSetup } from '../../support/specSetup.ts';

interface Body {
  state: Array<Record<string, unknown>>;
  links: { next: string | null };
  _status?: { messages: Array<{ message: string }> };
}

const slot = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

for (const backend of testBackends()) {
  describe(`contract state (${backend})`, () => {
    let t: TestApp;
    // contract 0.0.5001 (an EVM address) with slots 1 and 2
    before(async () => {
      t = await openTestApp(backend, (db) => loadSpecSetup(db, 'specs-extra/contract-state/limit.json'));
    });
    after(() => t?.close());

    test('an item has the keys of the reference in its order', async () => {
      const { status, body } = await t.getJson<Body>('/api/v1/contracts/0.0.5001/state');
      assert.equal(status, 200);
      assert.deepEqual(body.state.map((s) => Object.keys(s)), [0, 1].map(() => ['address', 'contract_id', 'timestamp', 'slot', 'value']));
      assert.deepEqual(body.state[0], {
        address: '0x25fe26adc577cc89172e6156c9e24f7b9751b762',
        contract_id: '0.0.5001',
        timestamp: '1676540001.234390005',
        slot: slot(1),
        value: slot(0x10),
      });
      assert.equal(body.links.next, null);
    });

    test('pages on slot by links, ascending and descending, by id and by long-zero address', async () => {
      for (const [path, order, slots] of [
        ['5001', 'asc', [1, 2]],
        ['0.0.5001', 'desc', [2, 1]],
        ['0x0000000000000000000000000000000000001389', 'asc', [1, 2]],
      ] as const) {
        const seen: string[] = [];
        const first = `/api/v1/contracts/${path}/state?limit=1${order === 'desc' ? '&order=desc' : ''}`;
        let url: string | null = first;
        const links: string[] = [];
        while (url !== null) {
          const { status, body }: { status: number; body: Body } = await t.getJson<Body>(url);
          assert.equal(status, 200, url);
          seen.push(...body.state.map((s) => String(s.slot)));
          url = body.links.next;
          if (url !== null) links.push(url);
          assert.ok(links.length <= 3, `no end of links: ${links.join(' ')}`);
        }
        assert.deepEqual(seen, slots.map(slot), first);
        const op = order === 'desc' ? 'lt' : 'gt';
        assert.equal(links[0], `${first}&slot=${op}:${slot(slots[0])}`);
      }
    });

    test('parameters: the reference 400s, before the contract is looked up; an unknown contract', async () => {
      const messages = async (url: string) => {
        const { status, body } = await t.getJson<Body>(url);
        return [status, ...(body._status?.messages.map((m) => m.message) ?? [])];
      };
      for (const query of ['slot=', 'slot=x', 'slot=ne:1', `slot=00${slot(1).slice(2)}`]) {
        assert.deepEqual(await messages(`/api/v1/contracts/0.0.9999/state?${query}`), [400, 'Invalid parameter: slot'], query);
      }
      assert.deepEqual(await messages('/api/v1/contracts/0.0.9999/state?limit=test'), [400, 'Invalid parameter: limit']);
      assert.deepEqual(await messages('/api/v1/contracts/0.0.9999/state?order=test'), [400, 'Invalid parameter: order']);
      assert.deepEqual(await messages('/api/v1/contracts/0.0.9999/state?nonce=2'), [400, 'Unknown query parameter: nonce']);
      // an id is not looked up (no state: an empty page); an EVM address no contract has is a 404
      assert.deepEqual((await t.getJson<Body>('/api/v1/contracts/0.0.9999/state')).body, { state: [], links: { next: null } });
      const unknown = '0x5e17c988cc14ae5f0bf328245eaf88f081c3a614';
      assert.deepEqual(await messages(`/api/v1/contracts/${unknown}/state`), [404, `No contract with the given evm address ${unknown} has been found.`]);
    });
  });
}
