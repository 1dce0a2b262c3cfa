/**
 * Random query strings and path parameters against GET /api/v1/contracts/{id}/results on an
 * embedded database: never a 5xx, always a well-formed JSON body (an error body, or
 * {results, links} with result objects of the documented shape).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type TestApp, openTestApp } from '../../support/app.ts';
import { EVM_1001, EVM_2002, EVM_NULL_DELETED, EVM_SHARED, generate, insertFixtures } from './fixtures.ts';

let t: TestApp;

const RESULT_KEYS = ['address', 'amount', 'bloom', 'call_result', 'contract_id', 'created_contract_ids', 'error_message', 'from',
  'function_parameters', 'gas_consumed', 'gas_limit', 'gas_used', 'timestamp', 'to', 'hash'];

before(async () => {
  const data = generate();
  data.results = data.results.slice(0, 120);
  t = await openTestApp('embedded', (db) => insertFixtures(db, data));
});

after(() => t?.close());

const HASH = `00${'cd'.repeat(47)}`;

const PATH_PARAMS = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('0.0.1001', '1001', '0', `0x${EVM_1001}`, '1002', '0.0.1003') },
  fc.constantFrom('0.0.1001', '1001', '0.1001', '0', '0.0.0', '-1', '274877906945', '9223372036854775807', '-9223372036854775808',
    '99999999999999999999', `0x${EVM_1001}`, EVM_1001.toUpperCase(), `0.0.${EVM_1001}`, `1.2.${EVM_1001}`, `0x${'5'.repeat(40)}`,
    '0x00000000000000000000000000000000000003e9', '1.2.00000000000000000000000000000000000003e9', '0.65536.1', '1024.0.1',
    'results', 'RESULTS', '0x', '%zz', '%2F', 'abc', `0x${EVM_SHARED}`),
  fc.stringMatching(/^[0-9a-fA-Fx.\-]{1,45}$/),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  // `.` names another route (app.inject resolves dot segments): /contracts/results
).filter((param) => !['.'].includes(param));

const KEYS = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('block.hash', 'block.number', 'from', 'internal', 'limit', 'order', 'timestamp', 'transaction.index') },
  { weight: 1, arbitrary: fc.constantFrom('TIMESTAMP', 'Block.Number', 'FROM', 'timestamp[]', 'timestamp[gt]', 'from[0]', 'a[21]', 'foo', '', 'index', 'topic0', '%zz', 'limit%5B%5D') },
);
const OPERATORS = fc.constantFrom('', '', 'eq:', 'ne:', 'lt:', 'lte:', 'gt:', 'gte:', 'EQ:', 'le:', ':', 'gt:1:');
const VALUES = fc.oneof(
  fc.constantFrom('1', '0', '25', '100', '101', '00002', '9223372036854775807', '9223372036854775808', '-1', 'asc', 'DESC', 'true',
    'FALSE', 'yes', '1700000000.000000000', '1700000010.250000001', '9223372036.854775807', '9223372036.854775808', '9999999999.999999999',
    '1.1234567890', '500', '0x1f5', '0x1Z', '0XA', '0x', '0xffffffffffffffffffff', '0x7fffffffffffffff', HASH, `0x${HASH}`,
    HASH.slice(0, 64), HASH.toUpperCase(), '2147483647', '2147483648', '0.0.2001', '2002', '1234567890123', '0.65536.1',
    `0x${EVM_2002}`, EVM_2002, EVM_NULL_DELETED, EVM_SHARED, `0x${'6'.repeat(40)}`, '00000000000000000000000000000000000007d1',
    '1.2.00000000000000000000000000000000000007d1', '%zz', '%3A', '', ' ', '+1'),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
);
const ts = fc.integer({ min: -5, max: 130 }).map((i) => `${1700000000 + Math.floor(i / 4)}.${String((i % 4) * 250000000).padStart(9, '0')}`);
/** Mostly valid key/value pairs, so that many requests reach the database. */
const VALID_PAIR = fc.oneof(
  fc.tuple(fc.constantFrom('timestamp=', 'timestamp=gt:', 'timestamp=gte:', 'timestamp=lt:', 'timestamp=lte:', 'timestamp=ne:'), ts).map(([k, v]) => k + v),
  fc.constantFrom('limit=1', 'limit=3', 'limit=200', 'order=asc', 'order=DESC', 'internal=true', 'internal=false', 'from=2001', 'from=gt:0.0.2001',
    `from=0x${EVM_2002}`, 'from=ne:2003', 'block.number=500', 'block.number=0x1f6', `block.hash=${HASH}`, 'block.number=505',
    'transaction.index=3'),
);
const PAIR = fc.oneof(
  { weight: 3, arbitrary: VALID_PAIR },
  { weight: 2, arbitrary: fc.tuple(KEYS, OPERATORS, VALUES).map(([k, op, v]) => `${k}=${op}${v}`) },
);
const QUERY = fc
  .array(fc.oneof({ weight: 5, arbitrary: PAIR }, { weight: 1, arbitrary: fc.tuple(PAIR, fc.integer({ min: 2, max: 30 })).map(([p, n]) => Array(n).fill(p).join('&')) }), { maxLength: 7 })
  .map((pairs) => pairs.join('&'));

test('random paths and query strings never get a 5xx or a malformed body', async () => {
  let ok = 0;
  await fc.assert(
    fc.asyncProperty(PATH_PARAMS, QUERY, fc.boolean(), async (param, query, trailingSlash) => {
      const url = `/api/v1/contracts/${param}/results${trailingSlash ? '/' : ''}${query ? `?${query}` : ''}`;
      const response = await t.get(url);
      assert.ok(response.statusCode < 500, `${url} -> ${response.statusCode} ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const body = JSON.parse(response.body) as Record<string, unknown>;
      if (response.statusCode === 200) {
        ok++;
        assert.deepEqual(Object.keys(body), ['results', 'links'], url);
        const links = body.links as Record<string, unknown>;
        assert.deepEqual(Object.keys(links), ['next'], url);
        assert.ok(links.next === null || (typeof links.next === 'string' && links.next.includes('/results?')), url);
        for (const result of body.results as Array<Record<string, unknown>>) assert.deepEqual(Object.keys(result), RESULT_KEYS, url);
      } else {
        assert.ok([400, 404].includes(response.statusCode), `${url} -> ${response.statusCode}`);
        assert.deepEqual(Object.keys(body), ['_status'], url);
        const messages = (body._status as { messages: Array<{ message: unknown }> }).messages;
        assert.ok(messages.length > 0 && messages.every((m) => typeof m.message === 'string' && Object.keys(m).length === 1), url);
      }
    }),
    { numRuns: Number(process.env.RESULTS_FUZZ_RUNS ?? 3000) },
  );
  assert.ok(ok > 300, `only ${ok} requests were answered 200`);
});
