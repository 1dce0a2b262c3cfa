/**
 * GET /api/v1/contracts/results/logs through the HTTP stack on every test backend: what the spec
 * files do not cover (raw path spellings and the by-transaction fall-through, the timestamp quirks
 * of 1.5, transaction.hash resolution details, bindTimestampRange links).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../../src/db/db.ts';
import { type TestApp, openTestApp, testConfig } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import { BASE_TS, STEP, TOPICS, generate, insertFixtures } from './fixtures.ts';
import { seconds } from '../../support/timestamps.ts';

const data = generate();
/** Every log, newest first, as "seconds.nanos/index". */
const NEWEST = [...data.logs].sort((a, b) => (a.ts === b.ts ? b.index - a.index : a.ts > b.ts ? -1 : 1)).map((l) => `${seconds(l.ts)}/${l.index}`);
const timestampsWith = (n: number) => [...new Set(data.logs.map((l) => l.ts))].filter((ts) => data.logs.filter((l) => l.ts === ts).length >= n);
/** Two transactions whose 48-byte hashes share their first 32 bytes, at timestamps with 3+ logs. */
const [T1, T2] = timestampsWith(3) as [bigint, bigint];
const PREFIX = `21${'ab'.repeat(31)}`;
const H1 = `${PREFIX}${'01'.repeat(16)}`;
const H2 = `${PREFIX}${'02'.repeat(16)}`;
const logsAt = (ts: bigint, order: 'asc' | 'desc' = 'desc') =>
  data.logs.filter((l) => l.ts === ts).map((l) => `${seconds(l.ts)}/${l.index}`).sort((a, b) => (order === 'asc' ? (a < b ? -1 : 1) : a < b ? 1 : -1));

async function fill(db: Db): Promise<void> {
  await insertFixtures(db, data);
  for (const [ts, hash] of [[T1, H1], [T2, H2]] as const) {
    // distribution_id as the importer writes it: the hash's first two bytes as a signed 16-bit integer
    const bytes = Buffer.from(hash, 'hex');
    await db.query('insert into transaction_hash (consensus_timestamp, hash, payer_account_id, distribution_id) values ($1, $2, 5000, $3)', [
      ts.toString(),
      bytes,
      bytes.readInt16BE(0),
    ]);
  }
}

interface Body {
  logs: Array<{ timestamp: string; index: number }>;
  links: { next: string | null };
  _status?: { messages: Array<{ message: string }> };
}

for (const backend of testBackends()) {
  describe(`network logs (${backend})`, () => {
    let t: TestApp;
    before(async () => {
      t = await openTestApp(backend, fill);
    });
    after(() => t?.close());

    const get = (url: string) => t.getJson<Body>(url);
    const answer = async (url: string) => {
      const { status, body } = await get(url);
      return [status, ...(body._status?.messages.map((m) => m.message) ?? [])];
    };
    const items = (body: Body) => (body.logs ?? assert.fail(JSON.stringify(body))).map((l) => `${l.timestamp}/${l.index}`);

    test('every log, newest first, with the inclusive timestamp and exclusive index link', async () => {
      const r = await get('/api/v1/contracts/results/logs?limit=5');
      assert.equal(r.headers['cache-control'], 'public, max-age=10');
      assert.deepEqual(items(r.body), NEWEST.slice(0, 5));
      const [ts, index] = NEWEST[4]!.split('/');
      assert.equal(r.body.links.next, `/api/v1/contracts/results/logs?limit=5&timestamp=lte:${ts}&index=lt:${index}`);
    });

    test('contradictory ranges and zero bounds drop the timestamp filter (and an index attached to it)', async () => {
      const mid = seconds(BASE_TS + 60n * STEP);
      for (const query of [`timestamp=gt:${mid}&timestamp=lt:${mid}`, 'timestamp=lte:0', 'timestamp=lt:9999999999']) {
        const r = await get(`/api/v1/contracts/results/logs?limit=3&${query}`);
        assert.deepEqual([r.status, items(r.body)], [200, NEWEST.slice(0, 3)], query);
      }
      const later = seconds(BASE_TS + 61n * STEP);
      const r = await get(`/api/v1/contracts/results/logs?limit=3&timestamp=gte:${later}&timestamp=lte:${mid}&index=lt:1`);
      assert.deepEqual(items(r.body), NEWEST.slice(0, 3));
      assert.deepEqual(await answer('/api/v1/contracts/results/logs?timestamp=gt:9999999999'), [400, 'Invalid parameter: timestamp']);
    });

    test('transaction.hash: a 48-byte hash exactly, a 32-byte prefix the first in the page order', async () => {
      assert.deepEqual(items((await get(`/api/v1/contracts/results/logs?transaction.hash=${H2}`)).body), logsAt(T2));
      assert.deepEqual(items((await get(`/api/v1/contracts/results/logs?transaction.hash=0x${H1.toUpperCase()}`)).body), logsAt(T1));
      assert.deepEqual(items((await get(`/api/v1/contracts/results/logs?transaction.hash=${PREFIX}`)).body), logsAt(T2));
      assert.deepEqual(items((await get(`/api/v1/contracts/results/logs?transaction.hash=${PREFIX}&order=asc`)).body), logsAt(T1, 'asc'));
      // the user's timestamps pick among the matches; the index bound stays
      const before = await get(`/api/v1/contracts/results/logs?transaction.hash=${PREFIX}&timestamp=gte:${seconds(T1)}&timestamp=lt:${seconds(T2)}&index=gte:1`);
      assert.deepEqual(items(before.body), logsAt(T1).filter((l) => !l.endsWith('/0')));
      assert.deepEqual((await get(`/api/v1/contracts/results/logs?transaction.hash=${H1}&timestamp=gt:${seconds(T1)}`)).body, { logs: [], links: { next: null } });
      assert.deepEqual((await get(`/api/v1/contracts/results/logs?transaction.hash=${PREFIX}${'03'.repeat(16)}`)).body, { logs: [], links: { next: null } });
      // the link carries the user's bounds, not the resolved timestamp
      const paged = await get(`/api/v1/contracts/results/logs?transaction.hash=${H1}&limit=2`);
      const second = logsAt(T1)[1]!.split('/')[1];
      assert.equal(paged.body.links.next, `/api/v1/contracts/results/logs?transaction.hash=${H1}&limit=2&timestamp=lte:${seconds(T1)}&index=lt:${second}`);
      // errors: the topic rule looks at the user's timestamps; a second hash; any timestamp beyond int64
      assert.deepEqual(await answer(`/api/v1/contracts/results/logs?transaction.hash=${H1}&topic0=${TOPICS[0]}`), [
        400,
        'Cannot search topics without a valid timestamp range: No timestamp range or eq operator provided',
      ]);
      assert.deepEqual(await answer(`/api/v1/contracts/results/logs?transaction.hash=${H1}&transaction.hash=${H2}`), [400, 'Only one transaction.hash filter is allowed']);
      assert.deepEqual(await answer(`/api/v1/contracts/results/logs?transaction.hash=${H1}&timestamp=lt:9999999999`), [400, 'Invalid parameter: timestamp']);
      assert.deepEqual(await answer(`/api/v1/contracts/results/logs?transaction.hash=gt:${H1}`), [400, 'Invalid parameter: transaction.hash']);
      assert.deepEqual(await answer(`/api/v1/contracts/results/logs?transaction.hash=${H1}&index=gt:1`), [400, 'index without a timestamp parameter filter']);
      assert.deepEqual(await answer(`/api/v1/contracts/results/logs?transaction.hash=${H1}&index=1`), [400, 'timestamp must have eq operator']);
    });

    test('a logs segment not in lower case: this route, then the by-transaction route on the rewritten query', async () => {
      const newest = NEWEST[1]!.split('/');
      // a full page: its bounds are written into the query (a single lt: timestamp moves to the end)
      assert.deepEqual(await answer('/api/v1/contracts/results/LOGS'), [400, 'Unknown query parameter: timestamp', 'Unknown query parameter: index']);
      assert.deepEqual(await answer(`/api/v1/contracts/results/Logs/?timestamp=lte:${newest[0]}&limit=2`), [
        400,
        'Unknown query parameter: limit',
        'Unknown query parameter: timestamp',
        'Unknown query parameter: index',
      ]);
      // a short page writes nothing
      assert.deepEqual(await answer(`/api/v1/contracts/results/LOGS?transaction.hash=${H1}&limit=10`), [
        400,
        'Unknown query parameter: transaction.hash',
        'Unknown query parameter: limit',
      ]);
      // this route's own errors first (nonce is unknown to it)
      assert.deepEqual(await answer('/api/v1/contracts/results/LOGS?timestamp=x'), [400, 'Invalid parameter: timestamp']);
      assert.deepEqual(await answer('/api/v1/contracts/results/LOGS?nonce=1'), [400, 'Unknown query parameter: nonce']);
      // percent-encoded: the literal route does not match; an encoded "logs" is no route at all
      assert.deepEqual(await answer('/api/v1/contracts/results/%6cogs?limit=1'), [404, 'Not found']);
      assert.deepEqual(await answer('/api/v1/contracts/%72esults/logs'), [404, 'Not found']);
      assert.deepEqual(await answer('/api/v1/contracts/RESULTS/%6Cogs'), [404, 'Not found']);
      const invalidId = 'Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds';
      assert.deepEqual(await answer('/api/v1/contracts/results/L%6fGS?nonce=1'), [400, invalidId]);
      assert.deepEqual(await answer('/api/v1/contracts/results/L%6fGS?nonce=x&limit=1'), [400, 'Invalid parameter: nonce', 'Unknown query parameter: limit']);
      // the contracts segment in any case is this route
      assert.equal((await get('/api/v1/contracts/RESULTS/logs?limit=1')).status, 200);
    });
  });

  describe(`network logs with bindTimestampRange (${backend})`, () => {
    let t: TestApp;
    const base = testConfig();
    const width = 3_000_000_000n;
    const config = { ...base, query: { ...base.query, bindTimestampRange: true, maxTransactionsTimestampRangeNs: width } };
    const now = BASE_TS + 30n * STEP;
    before(async () => {
      t = await openTestApp(backend, fill, { config, clock: () => now });
    });
    after(() => t?.close());

    test('a short page of a cut range links on from the cut (inclusive) and the last index', async () => {
      const r = await t.getJson<Body>('/api/v1/contracts/results/logs?limit=100');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const window = data.logs.filter((l) => l.ts <= now && l.ts > now - width);
      assert.equal(r.body.logs.length, window.length);
      const last = r.body.logs[r.body.logs.length - 1]!;
      assert.equal(r.body.links.next, `/api/v1/contracts/results/logs?limit=100&timestamp=lte:${seconds(now - width + 1n)}&index=lt:${last.index}`);
      // the user's bounds are replaced in the link (an index eq needs a timestamp eq, which is never bound)
      const ranged = await t.getJson<Body>(`/api/v1/contracts/results/logs?limit=100&index=lt:3&timestamp=lte:${seconds(now)}`);
      const lastRanged = ranged.body.logs[ranged.body.logs.length - 1]!;
      assert.equal(ranged.body.links.next, `/api/v1/contracts/results/logs?limit=100&timestamp=lte:${seconds(now - width + 1n)}&index=lt:${lastRanged.index}`);
      // an empty cut page has no link (the reference fails there)
      const empty = await t.getJson<Body>(`/api/v1/contracts/results/logs?timestamp=lte:${seconds(BASE_TS - 100_000_000_000n)}`);
      assert.deepEqual([empty.status, empty.body], [200, { logs: [], links: { next: null } }]);
    });
  });
}
