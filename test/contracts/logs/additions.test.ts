/**
 * The additions of issue 27 (docs/compatibility.md, "Additions") on the demo network:
 * - `block.number` ranges on the logs and results listings answer exactly as their consensus range;
 * - `address` on every contract's logs selects exactly those contracts' logs;
 * - a listing asked for as NDJSON holds the concatenation of every page of the paged listing, and
 *   ends with a status line;
 * - Indexed-Through names the newest record file on every answer;
 * - with additions.filters off (the default) those requests answer as the reference does (400).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { formatTimestamp } from '../../../src/format/timestamp.ts';
import { seedDemo } from '../../../src/demo/seed.ts';
import { sql } from '../../../src/db/sql.ts';
import { appOn, testConfig, type TestApp, openTestApp } from '../../support/app.ts';
import { random } from '../../../bench/lib/random.ts';

const API = '/api/v1/contracts';
const FILTERS = { HIERO_MIRROR_REST_ADDITIONS_FILTERS: 'true' };

let service: TestApp;
let withFilters: ReturnType<typeof appOn>;
let blocks: Array<{ index: bigint; start: bigint; end: bigint }>;
let contracts: string[];
before(async () => {
  service = await openTestApp('embedded', (db) => seedDemo(db, { scale: 0.1 }));
  withFilters = appOn(service.db, { config: testConfig(FILTERS) });
  const rows = await service.db.query<{ index: string; start: string; end: string }>(
    sql`select index::text, consensus_start::text as start, consensus_end::text as end from record_file
        where consensus_end >= (select min(consensus_timestamp) from contract_log) order by index limit 400`,
  );
  blocks = rows.map((r) => ({ index: BigInt(r.index), start: BigInt(r.start), end: BigInt(r.end) }));
  contracts = (await service.db.query<{ id: string }>(sql`select distinct contract_id::text as id from contract_log order by 1`)).map((r) => r.id);
  assert.ok(blocks.length > 100 && contracts.length > 3);
});
after(async () => {
  await withFilters?.close();
  await service?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => withFilters.inject({ method: 'GET', url, headers });
const body = (res: LightMyRequestResponse) => JSON.parse(res.body) as { links: { next: string | null } } & Record<string, unknown[]>;

test('block.number ranges answer exactly as the consensus range of their blocks (logs and results, both listings)', async () => {
  const next = random(27);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  for (let i = 0; i < 60; i++) {
    const a = pick(blocks);
    const b = blocks[Math.min(blocks.length - 1, blocks.indexOf(a) + Math.floor(next() * 40))]!;
    const hex = next() < 0.3;
    const n = (v: bigint) => (hex ? `0x${v.toString(16)}` : v.toString());
    const [lowerOp, lower] = next() < 0.5 ? ['gte', a.index] : ['gt', a.index - 1n];
    const [upperOp, upper] = next() < 0.5 ? ['lte', b.index] : ['lt', b.index + 1n];
    const blockQuery = `block.number=${lowerOp}:${n(lower)}&block.number=${upperOp}:${n(upper)}`;
    const timeQuery = `timestamp=gte:${formatTimestamp(a.start)}&timestamp=lte:${formatTimestamp(b.end)}`;
    const extra = pick(['', '&order=asc', '&limit=3', '&limit=2&order=asc']);
    for (const base of [`${API}/results/logs`, `${API}/${pick(contracts)}/results/logs`, `${API}/results`, `${API}/${pick(contracts)}/results`]) {
      const byBlocks = await get(`${base}?${blockQuery}${extra}`);
      const byTime = await get(`${base}?${timeQuery}${extra}`);
      assert.equal(byBlocks.statusCode, 200, `${base}?${blockQuery}${extra}: ${byBlocks.body}`);
      assert.equal(byBlocks.body, byTime.body, `${base}?${blockQuery}${extra}`);
      assert.equal(byBlocks.headers.link, byTime.headers.link);
    }
  }
  // one block (eq) on the logs listing; intersected with a timestamp filter; a range without blocks
  const block = blocks[50]!;
  assert.equal(
    (await get(`${API}/results/logs?block.number=${block.index}`)).body,
    (await get(`${API}/results/logs?timestamp=gte:${formatTimestamp(block.start)}&timestamp=lte:${formatTimestamp(block.end)}`)).body,
  );
  const later = blocks[60]!;
  assert.equal(
    (await get(`${API}/results/logs?block.number=gte:${block.index}&block.number=lte:${later.index}&timestamp=gt:${formatTimestamp(blocks[55]!.start)}`)).body,
    (await get(`${API}/results/logs?timestamp=gt:${formatTimestamp(blocks[55]!.start)}&timestamp=lte:${formatTimestamp(later.end)}`)).body,
  );
  for (const url of [`${API}/results/logs?block.number=gte:99999999999`, `${API}/results?block.number=lt:0`, `${API}/results/logs?block.number=5&block.number=6`]) {
    const res = await get(url);
    assert.equal(res.statusCode, 200, url);
    assert.deepEqual(Object.values(body(res))[0], [], url);
  }
  // a topic search keeps its seven-day bound, counted on the blocks' range
  const topic = `topic0=0x${'ab'.repeat(32)}`;
  assert.equal((await get(`${API}/results/logs?${topic}&block.number=gte:${block.index}&block.number=lte:${later.index}`)).statusCode, 200);
  assert.equal((await get(`${API}/results/logs?${topic}&block.number=gte:${blocks[0]!.index}`)).statusCode, 400);
  // invalid values and operators
  for (const value of ['ne:5', 'abc', '1.5', '-1', '0x', 'gt:0xzz']) {
    const res = await get(`${API}/results/logs?block.number=${value}`);
    assert.equal(res.statusCode, 400, value);
    assert.match(res.body, /Invalid parameter: block\.number/);
  }
});

test('address on every contract\'s logs: exactly the logs of those contracts, in every form, an unknown one matching nothing', async () => {
  const all = (await get(`${API}/results/logs?limit=100&order=asc`, { accept: 'application/x-ndjson' })).body.trim().split('\n').slice(0, -1);
  const logs = all.map((line) => JSON.parse(line) as { contract_id: string; address: string });
  const next = random(7);
  for (let i = 0; i < 20; i++) {
    const chosen = contracts.filter(() => next() < 0.3).slice(0, 4);
    if (chosen.length === 0) chosen.push(contracts[0]!);
    const forms = chosen.map((id) => {
      const log = logs.find((l) => l.contract_id === `0.0.${id}`);
      const r = next();
      return r < 0.3 ? `0.0.${id}` : r < 0.5 ? id : r < 0.7 ? `0.${id}` : (log?.address ?? `0.0.${id}`);
    });
    const url = `${API}/results/logs?${forms.map((f) => `address=${f}`).join('&')}&address=0x${'00'.repeat(19)}ff&order=asc&limit=100`;
    const stream = (await get(url, { accept: 'application/x-ndjson' })).body.trim().split('\n');
    assert.match(stream[stream.length - 1]!, /"complete":true/);
    const expected = all.filter((line) => chosen.some((id) => (JSON.parse(line) as { contract_id: string }).contract_id === `0.0.${id}`));
    assert.deepEqual(stream.slice(0, -1), expected, url);
    // the paged listing: its next link carries the addresses
    const page = await get(url.replace('limit=100', 'limit=2'));
    if (expected.length > 2) assert.match(body(page).links.next!, /address=.*address=/);
  }
  const none = await get(`${API}/results/logs?address=0x${'12'.repeat(20)}`);
  assert.equal(none.body, '{"logs":[],"links":{"next":null}}');
  assert.equal((await get(`${API}/results/logs?address=gt:0.0.1`)).statusCode, 400);
  assert.equal((await get(`${API}/results/logs?address=0.0.x`)).statusCode, 400);
});

test('NDJSON: every listing\'s whole range equals the concatenation of its pages, then a status line', async () => {
  const c = contracts[1]!;
  const urls = [
    `${API}?limit=3`,
    `${API}/results?limit=7`,
    `${API}/results?limit=5&order=asc`,
    `${API}/${c}/results?limit=4`,
    `${API}/results/logs?limit=9`,
    `${API}/${c}/results/logs?limit=6&order=asc`,
    `${API}/${c}/state?limit=5`,
  ];
  for (const url of urls) {
    const key = url.includes('/logs') ? 'logs' : url.includes('/results') ? 'results' : url.includes('/state') ? 'state' : 'contracts';
    const pages: unknown[] = [];
    let link: string | null = url;
    for (let n = 0; link !== null && n < 5000; n++) {
      const page = body(await get(link));
      pages.push(...page[key]!);
      link = page.links.next;
    }
    const res = await get(url, { accept: 'application/x-ndjson' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/x-ndjson');
    const lines = res.body.split('\n');
    assert.equal(lines.pop(), '', 'every line ends with a newline');
    assert.equal(lines.pop(), `{"_status":{"complete":true,"items":${pages.length}}}`, url);
    assert.deepEqual(lines.map((l) => JSON.parse(l)), pages, url);
  }
  // the actions of one transaction
  const [tx] = await service.db.query<{ ts: string }>(sql`select consensus_timestamp::text as ts from contract_action order by consensus_timestamp desc limit 1`);
  const [result] = await service.db.query<{ hash: string }>(sql`select encode(transaction_hash, 'hex') as hash from contract_result where consensus_timestamp = ${tx!.ts}`);
  const actions = await get(`${API}/results/0x${result!.hash}/actions?limit=1`, { accept: 'application/x-ndjson' });
  assert.match(actions.body, /"complete":true/);
  // a request the route rejects is answered as usual, not as a stream
  const bad = await get(`${API}/results?limit=abc`, { accept: 'application/x-ndjson' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.headers['content-type'], 'application/json; charset=utf-8');
  // without the Accept header, or with JSON preferred, the paged answer
  for (const accept of ['application/json', '*/*', 'application/x-ndjson;q=0']) {
    assert.equal((await get(`${API}/results?limit=2`, { accept })).headers['content-type'], 'application/json; charset=utf-8', accept);
  }
});

test('NDJSON: at most additions.ndjson.maxItems items, then a status line saying where it stopped', async () => {
  const app = appOn(service.db, { config: testConfig({ HIERO_MIRROR_REST_ADDITIONS_NDJSON_MAXITEMS: '10', HIERO_MIRROR_REST_ADDITIONS_NDJSON_PAGESIZE: '4' }) });
  try {
    const res = await app.inject({ method: 'GET', url: `${API}/results/logs`, headers: { accept: 'application/x-ndjson' } });
    const lines = res.body.trim().split('\n');
    assert.equal(lines.length, 11);
    const status = JSON.parse(lines[10]!) as { _status: { complete: boolean; items: number; next: string } };
    assert.equal(status._status.complete, false);
    assert.equal(status._status.items, 10);
    assert.match(status._status.next, /^\/api\/v1\/contracts\/results\/logs\?/);
  } finally {
    await app.close();
  }
});

test('Indexed-Through: the newest record file on every answer of a route, cached or not; none with additions off', async () => {
  const [newest] = await service.db.query<{ index: string; end: string }>(sql`select index::text, consensus_end::text as end from record_file order by consensus_end desc limit 1`);
  const expected = `block=${newest!.index}; timestamp=${formatTimestamp(newest!.end)}`;
  for (const url of [`${API}/results/logs?limit=1`, `${API}/${contracts[0]}/results`, `${API}?limit=1`]) {
    assert.equal((await service.get(url)).headers['indexed-through'], expected, url);
  }
  const cached = appOn(service.db, { config: testConfig({ HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true', HIERO_MIRROR_REST_REDIS_URI: 'redis://127.0.0.1:1' }) });
  const off = appOn(service.db, { config: testConfig({ HIERO_MIRROR_REST_ADDITIONS_ENABLED: 'false' }) });
  try {
    for (let i = 0; i < 2; i++) assert.equal((await cached.inject(`${API}/results?limit=2`)).headers['indexed-through'], expected, `cached, request ${i + 1}`);
    assert.equal((await off.inject(`${API}/results?limit=2`)).headers['indexed-through'], undefined);
    const json = await off.inject({ method: 'GET', url: `${API}/results?limit=2`, headers: { accept: 'application/x-ndjson' } });
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8', 'additions off: the paged JSON answer');
  } finally {
    await cached.close();
    await off.close();
  }
});

test('with additions.filters off (the default), the filters answer as the reference does', async () => {
  const checks: Array<[string, string]> = [
    [`${API}/results/logs?block.number=5`, 'Unknown query parameter: block.number'],
    [`${API}/${contracts[0]}/results/logs?block.number=5`, 'Unknown query parameter: block.number'],
    [`${API}/results/logs?address=0.0.1`, 'Unknown query parameter: address'],
    [`${API}/results?block.number=gte:5`, 'Invalid parameter: block.number'],
    [`${API}/${contracts[0]}/results?block.number=lt:5`, 'Invalid parameter: block.number'],
  ];
  for (const [url, message] of checks) {
    const res = await service.get(url);
    assert.equal(res.statusCode, 400, url);
    assert.match(res.body, new RegExp(message.replace('.', '\\.')), url);
  }
});
