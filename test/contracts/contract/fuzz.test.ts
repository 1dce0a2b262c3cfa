import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type TestApp, openTestApp } from '../../support/app.ts';

let t: TestApp;

const CONTRACT_KEYS = [
  'admin_key', 'auto_renew_account', 'auto_renew_period', 'contract_id', 'created_timestamp', 'deleted', 'evm_address',
  'expiration_timestamp', 'file_id', 'max_automatic_token_associations', 'memo', 'nonce', 'obtainer_id',
  'permanent_removal', 'proxy_account_id', 'timestamp', 'bytecode', 'runtime_bytecode',
];

before(async () => {
  t = await openTestApp('embedded', (db) => db.exec(`
    insert into entity (id, num, realm, shard, type, timestamp_range, memo, created_timestamp, evm_address, deleted)
    values (1001, 1001, 0, 0, 'CONTRACT', '[100,)', 'a', 100, null, false),
           (1002, 1002, 0, 0, 'CONTRACT', '[200,)', 'b', 150, '\\x70f2b2914a2a4b783faefb75f459a580616fcb5e', true),
           (1003, 1003, 0, 0, 'ACCOUNT', '[1,)', 'c', 1, null, false);
    insert into entity_history (id, num, realm, shard, type, timestamp_range, memo, created_timestamp)
    values (1002, 1002, 0, 0, 'CONTRACT', '[150,200)', 'b0', 150);
    insert into contract (id, file_id, initcode) values (1001, 2001, null), (1002, null, '\\x6080');
    insert into file_data (consensus_timestamp, entity_id, transaction_type, file_data) values (90, 2001, 17, '\\x36303830');`));
});

after(() => t?.close());

const PATH_PARAMS = fc.oneof(
  fc.constantFrom('0.0.1001', '1001', '0.1001', '1002', '0x70f2b2914a2a4b783faefb75f459a580616fcb5e', '0.0.70f2b2914a2a4b783faefb75f459a580616fcb5e',
    '00000000000000000000000000000000000003E9', '1.2.00000000000000000000000000000000000003e9', '-1', '274877906945',
    '9999999999999999999', '0.65536.1', '1024.0.1', 'results', '0x', '', '%zz', '%2F', '0.0.0', 'abc'),
  fc.stringMatching(/^[0-9a-fA-Fx.\-]{0,45}$/),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  // `.`, `` and `results` name other routes (app.inject resolves dot segments): /contracts and /contracts/results
).filter((param) => !['', '.', 'results'].includes(param));

const KEYS = fc.constantFrom('timestamp', 'TIMESTAMP', 'timestamp[]', 'timestamp[gt]', 'limit', 'foo', 'order', '', 'a[21]');
const VALUES = fc.oneof(
  fc.constantFrom('1', '150', 'eq:150', 'lt:200', 'lte:0.000000200', 'gt:1', 'gte:9999999999', 'ne:150', 'x', 'gt:1:2', '1.1234567890',
    '9223372036.854775807', '9223372036.854775808', '%zz', ''),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const QUERY = fc.array(fc.tuple(KEYS, VALUES), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

test('random paths and query strings never get a 5xx or a malformed body', async () => {
  await fc.assert(
    fc.asyncProperty(PATH_PARAMS, QUERY, fc.boolean(), async (param, query, trailingSlash) => {
      const url = `/api/v1/contracts/${param}${trailingSlash ? '/' : ''}${query ? `?${query}` : ''}`;
      const response = await t.get(url);
      assert.ok(response.statusCode < 500, `${url} -> ${response.statusCode} ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const body = JSON.parse(response.body) as Record<string, unknown>;
      if (response.statusCode === 200) {
        assert.deepEqual(Object.keys(body), CONTRACT_KEYS, url);
      } else {
        assert.ok([400, 404].includes(response.statusCode), `${url} -> ${response.statusCode}`);
        const messages = (body._status as { messages: Array<{ message: unknown }> }).messages;
        assert.ok(messages.length > 0 && messages.every((m) => typeof m.message === 'string' && Object.keys(m).length === 1), url);
      }
    }),
    { numRuns: 3000 },
  );
});

test('historical lookups return the version valid as of the timestamp', async () => {
  const current = await t.get('/api/v1/contracts/0.0.1002?timestamp=200');
  assert.equal(JSON.parse(current.body).memo, 'b');
  const old = await t.get('/api/v1/contracts/0.0.1002?timestamp=lt:0.000000200');
  assert.deepEqual(JSON.parse(old.body).timestamp, { from: '0.000000150', to: '0.000000200' });
  const none = await t.get('/api/v1/contracts/0.0.1002?timestamp=lt:0.000000150');
  assert.equal(none.statusCode, 404);
});

test('bytecode from a file is its text; a deleted contract is still returned by address', async () => {
  const fromFile = JSON.parse((await t.get('/api/v1/contracts/1001')).body);
  assert.equal(fromFile.bytecode, '0x6080');
  assert.equal(fromFile.file_id, '0.0.2001');
  const byAddress = JSON.parse((await t.get('/api/v1/contracts/0x70f2b2914a2a4b783faefb75f459a580616fcb5e')).body);
  assert.equal(byAddress.contract_id, '0.0.1002');
  assert.equal(byAddress.deleted, true);
  assert.equal((await t.get('/api/v1/contracts/1003')).statusCode, 404);
});

test('ETag and If-None-Match give a 304; HEAD has headers only', async () => {
  const first = await t.get('/api/v1/contracts/1001');
  const etag = String(first.headers.etag);
  assert.match(etag, /^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
  const second = await t.get('/api/v1/contracts/1001', { 'if-none-match': etag });
  assert.equal(second.statusCode, 304);
  assert.equal(second.body, '');
  const head = await t.app.inject({ method: 'HEAD', url: '/api/v1/contracts/1001' });
  assert.equal(head.statusCode, 200);
  assert.equal(head.body, '');
});
