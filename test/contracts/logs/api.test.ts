/** The logs endpoint end to end: processing order, routing, links, quirks. On every test backend. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, openTestApp } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { EVM_1001, generate, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

const data = generate();
/** Contract 1001's logs in ascending (timestamp, index) order, as "seconds.nanos" and index. */
const LOGS_1001 = data.logs
  .filter((l) => l.contract === 1001n)
  .sort((a, b) => (a.ts === b.ts ? a.index - b.index : a.ts < b.ts ? -1 : 1))
  .map((l) => ({ ts: seconds(l.ts), index: l.index }));
const key = (l: { ts: string; index: number }) => `${l.ts}/${l.index}`;
/** The first timestamp at which 1001 has at least three logs. */
const BUSY = LOGS_1001.find((l, i) => LOGS_1001[i + 2]?.ts === l.ts)!.ts;
const AT_BUSY = LOGS_1001.filter((l) => l.ts === BUSY);

for (const backend of testBackends()) {
  describe(`logs endpoint (${backend})`, () => {
    let t: TestApp;

    before(async () => {
      t = await openTestApp(backend, async (db) => {
        await insertFixtures(db, data);
        await db.query(
          `insert into entity (id, num, realm, shard, type, timestamp_range, memo, evm_address, deleted)
           values (1005, 1005, 0, 0, 'CONTRACT', '[1,)', '', $1, true), (1006, 1006, 0, 0, 'CONTRACT', '[1,)', '', $2, null)`,
          [Buffer.from('aa'.repeat(20), 'hex'), Buffer.from('bb'.repeat(20), 'hex')],
        );
      });
    });

    after(() => t?.close());

    const get = (url: string) => t.getJson(url);
    const messages = async (url: string) => {
      const { status, body } = await get(url);
      return [status, ...body._status.messages.map((m: { message: string }) => m.message)];
    };
    const logsOf = (body: Record<string, any>) => (body.logs as Array<{ timestamp: string; index: number }>).map((l) => `${l.timestamp}/${l.index}`);
    const base = '/api/v1/contracts/0.0.1001/results/logs';
    const unknown = '/api/v1/contracts/0x5555555555555555555555555555555555555555/results/logs';
    const zero = ['/api/v1/contracts/0.0.0/results/logs', '/api/v1/contracts/0/results/logs', '/api/v1/contracts/0x0000000000000000000000000000000000000000/results/logs'];

    test('checks run in the reference order', async () => {
      assert.deepEqual(await messages('/api/v1/contracts/abc/results/logs?limit=x&foo=1'), [400, 'Invalid parameter: contractid']);
      assert.deepEqual(await messages(`${unknown}?limit=x`), [400, 'Invalid parameter: limit']);
      assert.deepEqual(await messages(`${unknown}?topic0=0a`), [400, 'Cannot search topics without a valid timestamp range: No timestamp range or eq operator provided']);
      // bound errors come after contract resolution
      const notFound = 'No contract with the given evm address 0x5555555555555555555555555555555555555555 has been found.';
      assert.deepEqual(await messages(`${unknown}?index=1`), [404, notFound]);
      assert.deepEqual(await messages(`${unknown}?timestamp=ne:1`), [404, notFound]);
      // deleted contracts and contracts with a NULL deleted flag are not found by address
      assert.equal((await get(`/api/v1/contracts/${'aa'.repeat(20)}/results/logs`)).status, 404);
      assert.equal((await get(`/api/v1/contracts/${'bb'.repeat(20)}/results/logs`)).status, 404);
      // id 0: an empty page before any bound check
      for (const url of zero) {
        for (const query of ['', '?index=1', '?timestamp=ne:1', '?timestamp=1&index=1.5', '?index=gt:1&timestamp=lt:5']) {
          const { status, body } = await get(`${url}${query}`);
          assert.equal(status, 200, url + query);
          assert.deepEqual(body, { logs: [], links: { next: null } });
        }
        assert.deepEqual(await messages(`${url}?index=a`), [400, 'Invalid parameter: index']);
      }
      assert.deepEqual(await messages(`${base}?index=-1&index=a`), [400, 'Invalid parameter: index', 'Invalid parameter: index']);
      assert.deepEqual(await messages(`${base}?transaction.hash=0x33&scheduled=true&limit=0`), [
        400,
        'Invalid parameter: limit',
        'Unknown query parameter: transaction.hash',
        'Unknown query parameter: scheduled',
      ]);
      assert.deepEqual(await messages(`${base}?topic1=gt:0xaaaaaaa`), [400, 'Invalid parameter: topic1']);
      assert.deepEqual(await messages(`${base}?topic1=0a&timestamp=ne:1&index=ne:1`), [
        400,
        'Cannot search topics without a valid timestamp range: Not equals operator not supported for timestamp param',
      ]);
      assert.deepEqual(await messages(`${base}?index=ne:1&timestamp=ne:1`), [400, 'Not equal (ne) operator is not supported for index']);
      assert.deepEqual(await messages(`${base}?index=2`), [400, 'timestamp must have eq operator']);
    });

    test('index values the database would reject are a 400, only when no other error applies', async () => {
      for (const value of ['1.5', '1e0', '0x1', '1%202', '2147483648', 'gt:2147483647.5']) {
        assert.deepEqual(await messages(`${base}?timestamp=${BUSY}&index=${value}`), [400, 'Invalid parameter: index'], value);
      }
      assert.deepEqual(await messages(`${base}?index=1.5&foo=1`), [400, 'Unknown query parameter: foo']);
      assert.deepEqual(await messages(`${base}?index=1.5`), [400, 'timestamp must have eq operator']);
      // leading zeros and a sign are integers
      const { status, body } = await get(`${base}?timestamp=${BUSY}&index=000${AT_BUSY[1]!.index}`);
      assert.equal(status, 200);
      assert.deepEqual(logsOf(body), [key(AT_BUSY[1]!)]);
      assert.deepEqual(logsOf((await get(`${base}?timestamp=${BUSY}&index=%2B${AT_BUSY[0]!.index}`)).body), [key(AT_BUSY[0]!)]);
      assert.deepEqual((await get(`${base}?timestamp=${BUSY}&index=gt:2147483647`)).body, { logs: [], links: { next: null } });
      // whitespace around the integer, as PostgreSQL reads the reference's text parameter
      for (const spaced of [`%20${AT_BUSY[1]!.index}`, `${AT_BUSY[1]!.index}%20`, `%09${AT_BUSY[1]!.index}`]) {
        assert.deepEqual(logsOf((await get(`${base}?timestamp=${BUSY}&index=${spaced}`)).body), [key(AT_BUSY[1]!)], spaced);
      }
    });

    test('routing: case-insensitive literal segments, trailing slash, every path form', async () => {
      for (const path of [
        '/API/V1/CONTRACTS/1001/RESULTS/LOGS',
        '/api/v1/contracts/0.0.1001/results/logs/',
        `/api/v1/contracts/0x${EVM_1001}/results/logs`,
        `/api/v1/contracts/0.0.${EVM_1001.toUpperCase()}/results/logs`,
        '/api/v1/contracts/0x00000000000000000000000000000000000003E9/results/logs',
      ]) {
        const { status, body, headers } = await get(`${path}?limit=2`);
        assert.equal(status, 200, path);
        assert.equal(headers['cache-control'], 'public, max-age=1');
        assert.deepEqual(logsOf(body), LOGS_1001.slice(-2).reverse().map(key), path);
        const last = LOGS_1001[LOGS_1001.length - 2]!;
        const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
        assert.equal(body.links.next, `${trimmed}?limit=2&timestamp=lte:${last.ts}&index=lt:${last.index}`);
      }
      assert.equal((await get('/api/v1/contracts/1001/results/logs/extra')).status, 404);
      assert.equal((await get('/api/v1/contracts/1001/results/log')).status, 404);
    });

    test('links follow the reference examples', async () => {
      const first = LOGS_1001[0]!;
      const newest = LOGS_1001[LOGS_1001.length - 1]!;
      let r = await get(`${base}?limit=2&order=ASC`);
      assert.equal(r.body.links.next, `${base}?limit=2&order=asc&timestamp=gte:${LOGS_1001[1]!.ts}&index=gt:${LOGS_1001[1]!.index}`);
      assert.equal(r.headers.link, `<${r.body.links.next}>; rel="next"`);
      r = await get(`${base}?limit=1&timestamp=${BUSY}`);
      assert.equal(r.body.links.next, `${base}?limit=1&timestamp=${BUSY}&index=lt:${AT_BUSY[AT_BUSY.length - 1]!.index}`);
      r = await get(`${base}?limit=1&timestamp=${BUSY}&index=gt:0`);
      assert.equal(r.body.links.next, `${base}?limit=1&timestamp=${BUSY}&index=gt:0&index=lt:${AT_BUSY[AT_BUSY.length - 1]!.index}`);
      r = await get(`${base}?limit=1&timestamp=${BUSY}&index=${AT_BUSY[0]!.index}`);
      assert.deepEqual(logsOf(r.body), [key(AT_BUSY[0]!)]);
      assert.equal(r.body.links.next, null);
      assert.equal(r.headers.link, undefined);
      // gte:T&lte:T is an eq for the query, but the link keeps the request's values
      r = await get(`${base}?limit=1&timestamp=gte:${BUSY}&timestamp=lte:${BUSY}&index=gte:0`);
      assert.equal(
        r.body.links.next,
        `${base}?limit=1&timestamp=gte:${BUSY}&timestamp=lte:${BUSY}&index=gte:0&index=lt:${AT_BUSY[AT_BUSY.length - 1]!.index}`,
      );
      r = await get(`${base}?limit=ne:1&order=gte:ASC`);
      assert.equal(r.body.links.next, `${base}?limit=ne:1&order=gte:asc&timestamp=gte:${first.ts}&index=gt:${first.index}`);
      r = await get(`${base}?limit=1&timestamp=lte:${newest.ts}&timestamp=gt:1`);
      assert.equal(r.body.links.next, `${base}?limit=1&timestamp=gt:1&timestamp=lte:${newest.ts}&index=lt:${newest.index}`);
      // a full last page still links; the page behind it is empty
      const tail = LOGS_1001.filter((l) => l.ts >= LOGS_1001[LOGS_1001.length - 7]!.ts);
      r = await get(`${base}?timestamp=gte:${tail[0]!.ts}&limit=${tail.length}`);
      assert.equal(r.body.logs.length, tail.length);
      const after = await get(r.body.links.next);
      assert.deepEqual(after.body, { logs: [], links: { next: null } });
      // limit above the maximum is capped, and kept as typed in the link
      r = await get(`${base}?limit=00200`);
      assert.equal(r.body.logs.length, 100);
      assert.match(r.body.links.next, /^\/api\/v1\/contracts\/0\.0\.1001\/results\/logs\?limit=00200&timestamp=lte:/);
    });

    test('crossed timestamp bounds with index bounds give the boundary slices (reference union)', async () => {
      const [x, y] = [LOGS_1001[3]!, LOGS_1001[LOGS_1001.length - 4]!];
      const { status, body } = await get(`${base}?timestamp=gte:${y.ts}&timestamp=lte:${x.ts}&index=gte:0&index=lte:9&order=asc&limit=100`);
      assert.equal(status, 200);
      const want = [...LOGS_1001.filter((l) => l.ts === x.ts), ...LOGS_1001.filter((l) => l.ts === y.ts)].map(key);
      assert.deepEqual(logsOf(body), want);
      // lower slice only: the upper bound does not apply to the timestamp of the lower bound
      const only = await get(`${base}?timestamp=gte:${y.ts}&timestamp=lt:${x.ts}&index=gte:0&limit=100`);
      assert.deepEqual(logsOf(only.body), LOGS_1001.filter((l) => l.ts === y.ts).reverse().map(key));
    });

    test('topics: OR within a key, AND across keys, zero-padded or not, all-zero never matches', async () => {
      const all = data.logs.filter((l) => l.contract === 1001n);
      const range = `timestamp=gte:${LOGS_1001[0]!.ts}&timestamp=lte:${LOGS_1001[LOGS_1001.length - 1]!.ts}`;
      const count = async (query: string) => (await get(`${base}?${range}&limit=100&${query}`)).body.logs.length as number;
      const transfer = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
      assert.equal(await count(`topic0=0x${transfer}`), all.filter((l) => l.topic0 === transfer).length);
      assert.equal(await count('topic0=0x000000000000000000000000000000000000000000000000000000008c5be1e5&topic0=A'), all.filter((l) => l.topic0 === '8c5be1e5' || l.topic0 === '0a').length);
      assert.equal(await count('topic1=a&topic2=0x0a'), all.filter((l) => l.topic1 === '0a' && l.topic2 === '0a').length);
      assert.ok(all.some((l) => l.topic0 === '00'));
      assert.equal(await count('topic0=0x00'), 0);
      assert.equal(await count('TOPIC0=0a'), all.filter((l) => l.topic0 === '0a').length);
    });
  });
}
