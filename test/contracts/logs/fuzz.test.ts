/** Random paths and query strings never get a 5xx or a malformed body from the logs endpoint. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type TestApp, openTestApp } from '../../support/app.ts';
import { BASE_TS, EVM_1001, STEP, TOPICS, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

let t: TestApp;

const LOG_KEYS = ['address', 'bloom', 'contract_id', 'data', 'index', 'topics', 'block_hash', 'block_number', 'root_contract_id', 'timestamp', 'transaction_hash', 'transaction_index'];

before(async () => {
  t = await openTestApp('embedded', (db) => insertFixtures(db));
});

after(() => t?.close());

const PATH_PARAMS = fc.oneof(
  fc.constantFrom(
    '0.0.1001', '1001', '0.1001', '1002', '1003', `0x${EVM_1001}`, `0.0.${EVM_1001}`, `1.2.${EVM_1001}`, EVM_1001.toUpperCase(),
    '0x00000000000000000000000000000000000003E9', '1.2.00000000000000000000000000000000000003e9', '0x5555555555555555555555555555555555555555',
    '-1', '274877906945', '9999999999999999999', '-9223372036854775809', '0.65536.1', '1024.0.1', '0.0.0', '0', '0x0000000000000000000000000000000000000000',
    'results', '0x', '', '%zz', '%2F', 'abc', '1.2.3.4',
  ),
  fc.stringMatching(/^[0-9a-fA-Fx.\-]{0,45}$/),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  // `.` names another route (app.inject resolves dot segments): /contracts/results/logs
).filter((param) => !['.'].includes(param));

const KEYS = fc.constantFrom(
  'timestamp', 'TIMESTAMP', 'timestamp[]', 'timestamp[gt]', 'index', 'Index', 'index[]', 'index[0]', 'limit', 'order', 'ORDER',
  'topic0', 'topic1', 'Topic2', 'topic3', 'topic0[]', 'topic4', 'transaction.hash', 'foo', '', 'a[21]', '%74imestamp',
);
const ts = fc.integer({ min: -3, max: 125 }).map((i) => seconds(BASE_TS + BigInt(i) * STEP));
const OPS = fc.constantFrom('', 'eq:', 'ne:', 'lt:', 'lte:', 'gt:', 'gte:', 'GT:', 'xx:');
const VALUES = fc.oneof(
  fc.tuple(OPS, ts).map(([op, t]) => `${op}${t}`),
  fc.tuple(OPS, fc.constantFrom('0', '1', '2', '3', '-1', '1.5', '1e0', '0x1', '+1', '%201', '2147483647', '2147483648', '99999999999', '00002', 'a', '')).map(
    ([op, v]) => `${op}${v}`,
  ),
  fc.constantFrom(...TOPICS).map((t) => `0x${t.padStart(64, '0')}`),
  fc.constantFrom(...TOPICS),
  fc.constantFrom(
    'asc', 'DESC', 'lt:asc', 'sideways', '0', '100', '101', '9223372036854775808', 'gt:1:2', '0xqqq', '0X0a', '00', `0x${'f'.repeat(65)}`,
    '9999999999', '9223372036.854775807', '9223372036.854775808', 'gte:9223372036.854775807', 'gt:9223372036.854775807', '%zz', '%', '', '1:2:3',
  ),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const PAIRS = fc.array(fc.tuple(KEYS, VALUES), { maxLength: 8 });
/** A valid topic search with a random (maybe too wide) range, so that queries with topics really run. */
const TOPIC_SEARCH = fc
  .tuple(fc.constantFrom('topic0', 'topic1', 'topic2'), fc.constantFrom(...TOPICS), ts, ts, fc.constantFrom('gt', 'gte'), fc.constantFrom('lt', 'lte'))
  .map(([key, topic, a, b, lo, hi]) => [[key, topic], ['timestamp', `${lo}:${a}`], ['timestamp', `${hi}:${b}`]] as Array<[string, string]>);
const QUERY = fc
  .tuple(PAIRS, fc.option(TOPIC_SEARCH, { nil: undefined }), fc.boolean())
  .chain(([pairs, search, flip]) =>
    fc.shuffledSubarray([...pairs, ...(search ?? [])], { minLength: flip ? 0 : pairs.length + (search?.length ?? 0) }),
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

test('random paths and query strings never get a 5xx or a malformed body', async () => {
  const statuses = new Map<number, number>();
  let withLogs = 0;
  await fc.assert(
    fc.asyncProperty(PATH_PARAMS, QUERY, fc.boolean(), async (param, query, trailingSlash) => {
      const url = `/api/v1/contracts/${param}/results/logs${trailingSlash ? '/' : ''}${query ? `?${query}` : ''}`;
      const response = await t.get(url);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      assert.ok(response.statusCode < 500, `${url} -> ${response.statusCode} ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const body = JSON.parse(response.body) as Record<string, unknown>;
      if (response.statusCode === 200) {
        assert.deepEqual(Object.keys(body), ['logs', 'links'], url);
        const logs = body.logs as Array<Record<string, unknown>>;
        assert.ok(Array.isArray(logs));
        for (const log of logs) assert.deepEqual(Object.keys(log), LOG_KEYS, url);
        if (logs.length > 0) withLogs++;
        const links = body.links as Record<string, unknown>;
        assert.deepEqual(Object.keys(links), ['next']);
        assert.ok(links.next === null || (typeof links.next === 'string' && links.next.startsWith('/api/v1/contracts/')), url);
        assert.equal(response.headers['cache-control'], 'public, max-age=1');
      } else {
        assert.ok([400, 404].includes(response.statusCode), `${url} -> ${response.statusCode}`);
        assert.deepEqual(Object.keys(body), ['_status']);
        const messages = (body._status as { messages: Array<{ message: unknown }> }).messages;
        assert.ok(messages.length > 0 && messages.every((m) => typeof m.message === 'string' && Object.keys(m).length === 1), url);
      }
    }),
    { numRuns: Number(process.env.LOGS_FUZZ_RUNS ?? 3000) },
  );
  // the generator reaches both answers with rows (about 55 of 3,000 runs: a margin for the random seed)
  // and every kind of error
  assert.ok(withLogs > 20 && (statuses.get(400) ?? 0) > 50 && (statuses.get(404) ?? 0) > 0, JSON.stringify([...statuses, ['withLogs', withLogs]]));
});
