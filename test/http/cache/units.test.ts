/**
 * The response cache's pure parts: keys (what tells requests apart, what they share), lifetimes
 * from cache-control and finality, the max-age countdown of replays, the stored form of an
 * answer, and the byte bound of the in-process tier.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { Answer } from '../../../src/http/answer/answer.ts';
import { GZIP_IN_POOL_FROM, decodeAnswer, encodeAnswer } from '../../../src/http/cache/redisCodec.ts';
import { cacheKey, keyNamespace, requestIdentity } from '../../../src/http/cache/key.ts';
import { countDown, lifetimeMs, maxAgeSeconds } from '../../../src/http/cache/lifetime.ts';
import { LocalTier } from '../../../src/http/cache/localTier.ts';
import { SettledMemo } from '../../../src/db/settled.ts';
import { sanitizeUri } from '../../../src/http/cache/redisTier.ts';
import { ENTRY_OVERHEAD, UrlIdentities } from '../../../src/http/cache/urlIdentities.ts';
import { parseQuery } from '../../../src/http/request/query.ts';
import { rawPath, rawSearch } from '../../../src/http/request/target.ts';
import { testConfig } from '../../support/app.ts';

const NS = keyNamespace(testConfig(), '1.0.0');
const keyOf = (url: string, linkBase = '') => cacheKey(NS, { path: rawPath(url), query: parseQuery(rawSearch(url)), linkBase });

test('keys: requests that no handler can tell apart share a key', () => {
  const same = (a: string, b: string) => assert.equal(keyOf(a), keyOf(b), `${a} vs ${b}`);
  same('/api/v1/contracts/results?timestamp=gte:1&limit=2', '/api/v1/contracts/results?timestamp=gte%3A1&limit=2');
  same('/api/v1/contracts/results?Limit=2&ORDER=DESC', '/api/v1/contracts/results?limit=2&order=desc');
  same('/api/v1/contracts/results?topic0=a+b', '/api/v1/contracts/results?topic0=a%20b');
  same('/api/v1/contracts/results?limit=2&', '/api/v1/contracts/results?limit=2');
  same('/api/v1/contracts/results', '/api/v1/contracts/results?');
});

test('keys: everything an answer depends on tells requests apart', () => {
  const differ = (a: string, b: string) => assert.notEqual(keyOf(a), keyOf(b), `${a} vs ${b}`);
  // the case of the mount path picks the cache-control header; links repeat the path as sent
  differ('/api/v1/contracts', '/API/v1/contracts');
  differ('/api/v1/contracts/results', '/api/v1/contracts/results/');
  differ('/api/v1/contracts/0.0.1001/results', '/api/v1/contracts/0.0.1002/results');
  // parameter order is kept in links; values are case-sensitive except order/result
  differ('/api/v1/contracts/results?limit=2&order=asc', '/api/v1/contracts/results?order=asc&limit=2');
  differ('/api/v1/contracts/results?topic0=0xAB', '/api/v1/contracts/results?topic0=0xab');
  differ('/api/v1/contracts/results?limit=2&limit=3', '/api/v1/contracts/results?limit=3&limit=2');
  // no ambiguity between where the path ends and the query starts
  differ('/api/v1/contracts/results?a=b', '/api/v1/contracts/results%3Fa=b');
  // response.includeHostInLink: the host links start with
  assert.notEqual(keyOf('/api/v1/contracts', 'http://a:5551'), keyOf('/api/v1/contracts', 'http://b:5551'));
});

test('keys: the namespace holds the prefix and a fingerprint of the version, database and answer-shaping settings', () => {
  assert.match(NS, /^cqs:v1:[\w-]{12}:$/);
  assert.equal(keyNamespace(testConfig(), '1.0.0'), NS);
  assert.notEqual(keyNamespace(testConfig(), '1.0.1'), NS);
  assert.notEqual(keyNamespace(testConfig({ HIERO_MIRROR_REST_RESPONSE_LIMIT_DEFAULT: '10' }), '1.0.0'), NS);
  assert.notEqual(keyNamespace(testConfig({ DATABASE_URL: 'postgres://u:p@h:5432/other' }), '1.0.0'), NS);
  // the password is no part of it
  assert.equal(
    keyNamespace(testConfig({ DATABASE_URL: 'postgres://u:one@h:5432/d' }), '1.0.0'),
    keyNamespace(testConfig({ DATABASE_URL: 'postgres://u:two@h:5432/d' }), '1.0.0'),
  );
  // settings that shape no answer leave it alone
  assert.equal(keyNamespace(testConfig({ HIERO_MIRROR_REST_REDIS_URI: 'redis://elsewhere:6379' }), '1.0.0'), NS);
  assert.match(keyNamespace(testConfig({ HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: 'test:' }), '1.0.0'), /^test:v1:/);
});

test('lifetime: max-age of the answer, 1 s without one, none for no-store, private or max-age=0', () => {
  assert.equal(maxAgeSeconds('public, max-age=10'), 10);
  assert.equal(maxAgeSeconds('public, max-age=600'), 600);
  assert.equal(maxAgeSeconds('MAX-AGE=5, public'), 5);
  assert.equal(maxAgeSeconds('public'), 1);
  assert.equal(maxAgeSeconds('public, s-maxage=30'), 1);
  assert.equal(maxAgeSeconds('public, max-age=0'), 0);
  assert.equal(maxAgeSeconds('no-store'), 0);
  assert.equal(maxAgeSeconds('private, max-age=60'), 0);
});

test('lifetime: a settled 200 lives cache.response.immutableMaxAge once the network is settled through its end, on one server', () => {
  const day = 86_400_000;
  const settled = (through: bigint | undefined, failedOver = false) => ({ settledThrough: through, failedOver });
  const answer = (settledAfter?: bigint, status = 200) => ({ status, cacheControl: 'public, max-age=10', ...(settledAfter === undefined ? {} : { settledAfter }) });
  assert.deepEqual(lifetimeMs(answer(), day, settled(100n)), { ms: 10_000, settled: false });
  assert.deepEqual(lifetimeMs(answer(100n), day, settled(100n)), { ms: day, settled: true });
  assert.deepEqual(lifetimeMs(answer(101n), day, settled(100n)), { ms: 10_000, settled: false });
  // an empty record_file table, or a failing database, settles nothing
  assert.deepEqual(lifetimeMs(answer(1n), day, settled(undefined)), { ms: 10_000, settled: false });
  // 0n needs no bound
  assert.deepEqual(lifetimeMs(answer(0n), day, settled(undefined)), { ms: day, settled: true });
  // data from two servers (a statement failed over) is never settled, whatever the bound
  assert.deepEqual(lifetimeMs(answer(100n), day, settled(100n, true)), { ms: 10_000, settled: false });
  assert.deepEqual(lifetimeMs(answer(0n), day, settled(100n, true)), { ms: 10_000, settled: false });
  // a partial answer (206) may still be completed; no-store is never kept
  assert.deepEqual(lifetimeMs(answer(0n, 206), day, settled(100n)), { ms: 10_000, settled: false });
  assert.deepEqual(lifetimeMs({ status: 200, cacheControl: 'no-store', settledAfter: 0n }, day, settled(100n)), { ms: 0, settled: false });
  // an immutable lifetime shorter than max-age changes nothing
  assert.deepEqual(lifetimeMs(answer(0n), 5_000, settled(100n)), { ms: 10_000, settled: false });
});

test('a server\'s settled bound: read at most once per second, concurrent callers share the read, only the first waits, a failure settles nothing', async () => {
  let clock = 0;
  const memo = new SettledMemo<bigint>(1000, () => clock);
  let reads = 0;
  let release: (value: bigint) => void = () => {};
  const read = () => (reads++, new Promise<bigint | undefined>((resolve) => (release = resolve)));
  const first = memo.get(read);
  const second = memo.get(read);
  assert.equal(reads, 1);
  release(100n);
  assert.deepEqual(await Promise.all([first, second]), [100n, 100n]);
  clock = 999;
  assert.equal(await memo.get(read), 100n);
  assert.equal(reads, 1, 'fresh: no read');
  clock = 1000;
  assert.equal(await memo.get(read), 100n, 'stale: the older value at once (still a bound), read again behind');
  assert.equal(await memo.get(read), 100n, 'and again while that read runs');
  assert.equal(reads, 2, 'one read for both');
  release(200n);
  await setImmediate();
  assert.equal(await memo.get(read), 200n, 'the new value once read');
  assert.equal(reads, 2);
  clock = 2000;
  assert.equal(await memo.get(() => Promise.reject(new Error('gone'))), 200n);
  await setImmediate();
  assert.equal(await memo.get(read), undefined, 'a failed read: no bound until the next');
  assert.equal(reads, 2, 'and no read before a second has passed');
  let hung = 0;
  const never = new SettledMemo<bigint>(1000, () => clock);
  const waiting = never.get(() => (hung++, new Promise<bigint | undefined>(() => {})));
  assert.equal(hung, 1);
  assert.equal(await Promise.race([waiting, setImmediate('pending')]), 'pending', 'nothing read yet: the first caller waits');
});

test('replays: max-age counts down with the time left (rounded up), never up, other directives kept', () => {
  assert.equal(countDown('public, max-age=10', 10_000), 'public, max-age=10');
  assert.equal(countDown('public, max-age=10', 9_001), 'public, max-age=10');
  assert.equal(countDown('public, max-age=10', 3_500), 'public, max-age=4');
  assert.equal(countDown('public, max-age=10', 0), 'public, max-age=0');
  assert.equal(countDown('public, max-age=600', 86_000_000), 'public, max-age=600');
  assert.equal(countDown('max-age=10, stale-while-revalidate=5', 2_000), 'max-age=2, stale-while-revalidate=5');
  assert.equal(countDown('public', 500), 'public');
});

test('stored answers: fields and body come back as they went in, gzipped from 150 bytes when compress is on', async () => {
  const answer = (body: string, link?: string): Answer => ({
    status: 200,
    body: Buffer.from(body),
    etag: 'W/"2-abc"',
    cacheControl: 'public, max-age=10',
    ...(link ? { link } : {}),
  });
  const long = `{"results":[${'{"a":"0x0000"},'.repeat(40)}1]}`;
  // gzipped on the thread pool (GZIP_IN_POOL_FROM)
  const huge = `{"results":[${'{"a":"0x0000"},'.repeat(Math.ceil(GZIP_IN_POOL_FROM / 14))}1]}`;
  for (const a of [answer('{}'), answer(long, '</api/v1/contracts?limit=1&contract.id=lt:0.0.5>; rel="next"'), answer(huge), { ...answer('{"x":1}'), status: 206 as const }]) {
    for (const compress of [true, false]) assert.deepEqual(decodeAnswer(await encodeAnswer(a, compress)), a);
  }
  assert.ok((await encodeAnswer(answer(long), true)).length < long.length / 2);
  assert.ok((await encodeAnswer(answer(huge), true)).length < huge.length / 10);
  assert.ok((await encodeAnswer(answer(long), false)).includes(Buffer.from(long)));
  assert.ok((await encodeAnswer(answer('{"short":1}'), true)).includes(Buffer.from('{"short":1}')));
  // what this version did not write is a miss, not an error
  for (const junk of ['', 'no newline', '{"s":500,"e":"x","c":"y"}\n{}', '{"s":200}\n{}', '{"s":200,"e":"x","c":"y","z":1}\nnot gzip']) {
    assert.equal(decodeAnswer(Buffer.from(junk)), undefined, junk);
  }
});

test('the in-process tier: bounded in bytes (least recently used go first), entries expire on their own', () => {
  const body = (n: number): Answer => ({ status: 200, body: Buffer.alloc(n, 0x20), etag: 'e', cacheControl: 'c' });
  const tier = new LocalTier(10_000);
  tier.set('a', body(4000), 60_000);
  tier.set('b', body(4000), 60_000);
  assert.ok(tier.get('a'));
  tier.set('c', body(4000), 60_000);
  assert.ok(tier.get('a') && tier.get('c'));
  assert.equal(tier.get('b'), undefined);
  assert.ok(tier.bytes <= 10_000);
  tier.set('huge', body(20_000), 60_000);
  assert.equal(tier.get('huge'), undefined);
  const now = Date.now();
  tier.set('short', body(10), 1000, undefined, now);
  assert.ok(tier.get('short', now + 999));
  assert.equal(tier.get('short', now + 1000), undefined);
  tier.set('never', body(10), 0);
  assert.equal(tier.get('never'), undefined);
});

test('Redis URIs are logged without credentials', () => {
  assert.equal(sanitizeUri('redis://user:secret@cache:6379/2'), 'redis://***:***@cache:6379/2');
  assert.equal(sanitizeUri('redis://:secret@cache:6379'), 'redis://***:***@cache:6379');
  assert.equal(sanitizeUri('redis://127.0.0.1:6379'), 'redis://127.0.0.1:6379');
});

test('the in-process tier: compressed copies are kept with their entry, counted in its bytes, never outliving it', () => {
  const tier = new LocalTier(100_000);
  const answer = { status: 200 as const, body: Buffer.alloc(5_000, 0x61), etag: 'W/"1"', cacheControl: 'public, max-age=5' };
  tier.set('k', answer, 5_000, '/api/v1/contracts', 0);
  const entry = tier.get('k', 1)!;
  const before = tier.bytes;
  const copy = tier.addCompressed('k', entry, 'gzip', Buffer.from(gzipSync(answer.body)), 1);
  assert.equal(tier.bytes, before + copy.length);
  const again = tier.get('k', 2)!;
  assert.equal(again.compressed?.gzip, copy);
  assert.equal(again.route, '/api/v1/contracts');
  assert.equal(again.expiresAt, entry.expiresAt);
  // an entry replaced or gone meanwhile: the copy is handed back, not kept
  tier.set('k', answer, 5_000, '/api/v1/contracts', 0);
  const stale = Buffer.from('x');
  assert.equal(tier.addCompressed('k', again, 'br', stale, 3), stale);
  assert.equal(tier.get('k', 4)!.compressed, undefined);
});

test('the in-process tier keeps bodies in memory of their own, never a slice of a shared pool block', () => {
  const small = Buffer.from('{"contracts":[],"links":{"next":null}}', 'utf8');
  assert.ok(small.buffer.byteLength > small.length, 'Buffer.from of a short string is a pool slice');
  const tier = new LocalTier(10_000);
  tier.set('k', { status: 200, body: small, etag: 'W/"1"', cacheControl: 'public, max-age=1' }, 5_000, undefined, 0);
  const kept = tier.get('k', 1)!.answer.body;
  assert.equal(kept.buffer.byteLength, kept.length);
  assert.ok(kept.equals(small));
});

test('URL identities: the identity of the parsed request, remembered within a bound of characters', () => {
  const identities = new UrlIdentities(400 + 4 * ENTRY_OVERHEAD);
  const identityOf = (url: string) => requestIdentity({ path: rawPath(url), query: parseQuery(rawSearch(url)), linkBase: '' });
  const urls = [
    '/api/v1/contracts/results/logs?topic0=0xAB&order=DESC&limit=2',
    '/api/v1/contracts/results/logs?TOPIC0=0xAB&order=desc&limit=2',
    '/api/v1/contracts/0.0.1001/results?timestamp=gte%3A1.5&timestamp=lt:2',
    '/api/v1/contracts',
  ];
  for (const url of urls) assert.equal(identities.of(url), identityOf(url));
  // asked again: the same answer from memory
  for (const url of urls) assert.equal(identities.of(url), identityOf(url));
  // the case of a key and of order's value: one identity, as the cache keys have it
  assert.equal(identities.of(urls[0]!), identities.of(urls[1]!));
  // many more URLs than the bound holds: at most two generations are kept, each answer still right
  for (let i = 0; i < 200; i++) {
    const url = `/api/v1/contracts/0.0.${i}/results?limit=${i % 7}`;
    assert.equal(identities.of(url), identityOf(url));
  }
  // each entry costs at least 60 characters and the overhead here: at most 2 x 4 entries per generation
  assert.ok(identities.size <= 2 * Math.floor((400 + 4 * ENTRY_OVERHEAD) / (60 + ENTRY_OVERHEAD)), `${identities.size} URLs remembered`);
  // a URL larger than a generation is answered, not remembered
  const long = `/api/v1/contracts/results/logs?topic0=${'a'.repeat(800)}`;
  const before = identities.size;
  assert.equal(identities.of(long), identityOf(long));
  assert.equal(identities.size, before);
});
