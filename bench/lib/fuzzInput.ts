/**
 * Hostile and broken requests for the fuzzer (bench/scenarios/fuzz.ts) and its property test: each starts from
 * a valid URL of one of the ten routes and mutates its path (hostile ids, dot segments, case, escapes,
 * raw bytes), its query string (the keys and values of the property tests in test/contracts/contract,
 * test/contracts/logs and test/contracts/results, repeated, long, broken separators), its method, its headers
 * (encodings, conditionals, CORS, forwarding, oversized, non-ASCII) and its framing (bodies, chunked,
 * bare LF, HTTP/1.0, the absolute and asterisk forms and `//` paths). Seeded: the same seed gives the same requests.
 * And the slow readers' requests (bench/lib/slowReader.ts): big answers read a few bytes at a time or
 * not at all, disconnected midway.
 */
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  /** The request target as sent (may hold bytes a client library would refuse). */
  target: string;
  headers: Array<[string, string]>;
  body?: string;
  version: 'HTTP/1.1' | 'HTTP/1.0';
  lineEnd: '\r\n' | '\n';
  /** The connection may carry the next request: the body is one the server reads whole (a JSON-RPC call). */
  keepAlive?: true;
}

/** Path parameters of the property tests, and more: ids, addresses, hashes, nonsense. */
const HOSTILE_PARAMS = fc.constantFrom(
  '0.0.1001', '1001', '0.1001', '-1', '274877906945', '9999999999999999999', '-9223372036854775809', '9223372036854775807',
  '99999999999999999999', '0.65536.1', '1024.0.1', '0.0.0', '0', '1.2.3.4', '0x', '0X', '%zz', '%', '%2F', '%00', 'abc', 'RESULTS',
  'results', 'logs', 'state', 'actions', '.', '..', '%2e', '%2e%2e', `0x${'5'.repeat(40)}`, `0x${'f'.repeat(41)}`,
  '0x00000000000000000000000000000000000003E9', '1.2.00000000000000000000000000000000000003e9', `0x${'cd'.repeat(32)}`,
  `0x${'cd'.repeat(48)}`, `${'cd'.repeat(48)}`, '0.0.2001-1700000000-000000001', '0.0.2001@1700000000.000000001',
  '0.0.2001-9999999999-999999999', '0.0.2001-1700000000-1000000000', '1700000000.000000001', '1700000000', '9223372036.854775808',
  '-1700000000.1', '1e5', '0x1p3', ' ', '%20', '+', "'", "' or 1=1 --", '1;select pg_sleep(5)', '$1', '\\x00', '{}', '[]',
);
const ID_LIKE = fc.stringMatching(/^[0-9a-fA-Fx.\-]{0,70}$/);
const ENCODED = fc.string({ maxLength: 30, unit: 'binary' }).map(encodeURIComponent);
/** Raw characters, CR and LF excepted (they would end the request line). */
const RAW = fc.string({ maxLength: 12, unit: 'binary' }).map((s) => s.replace(/[\r\n]/g, ''));
const PARAM = fc.oneof({ weight: 4, arbitrary: HOSTILE_PARAMS }, { weight: 2, arbitrary: ID_LIKE }, { weight: 2, arbitrary: ENCODED }, { weight: 1, arbitrary: RAW });

const KEYS = fc.constantFrom(
  'timestamp', 'TIMESTAMP', 'timestamp[]', 'timestamp[gt]', 'limit', 'order', 'ORDER', 'index', 'Index', 'index[0]', 'topic0', 'topic1',
  'Topic2', 'topic3', 'topic0[]', 'topic4', 'transaction.hash', 'block.hash', 'block.number', 'Block.Number', 'from', 'FROM', 'from[0]',
  'internal', 'transaction.index', 'contract.id', 'slot', 'nonce', 'account.id', 'foo', '', 'a[21]', '%74imestamp', '%zz', 'limit%5B%5D',
  '__proto__', 'constructor', 'hasOwnProperty', 'a.b.c', 'timestamp[$gt]',
);
const OPS = fc.constantFrom('', '', 'eq:', 'ne:', 'lt:', 'lte:', 'gt:', 'gte:', 'GT:', 'EQ:', 'le:', 'xx:', ':', 'gt:1:');
const VALUES = fc.oneof(
  fc.tuple(OPS, fc.constantFrom('0', '1', '2', '25', '100', '101', '-1', '1.5', '1e0', '0x1', '+1', '%201', '2147483647', '2147483648',
    '99999999999', '00002', 'a', '', '1700000000.000000000', '1747000000.5', '9223372036.854775807', '9223372036.854775808',
    '9999999999.999999999', '1.1234567890', '0.0.2001', '0.65536.1', `0x${'6'.repeat(40)}`, `0x${'ab'.repeat(32)}`,
    `0x${'f'.repeat(65)}`, 'asc', 'DESC', 'true', 'FALSE', 'yes', '0xqqq', '0X0a', '%zz', '%', ' ', '1:2:3')).map(([op, v]) => `${op}${v}`),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  RAW.map((s) => s.replace(/[ #]/g, '')),
);
const PAIR = fc.tuple(KEYS, VALUES).map(([k, v]) => `${k}=${v}`);

const METHODS = fc.oneof(
  { weight: 14, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  { weight: 2, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'MKCOL') },
  { weight: 1, arbitrary: fc.constantFrom('get', 'FOO', 'G ET', 'GET\t', 'CONNECT', 'PRI', '') },
);

const HEADER = fc.oneof(
  fc.tuple(fc.constant('Accept-Encoding'), fc.constantFrom('gzip', 'br', 'deflate', 'gzip, deflate, br', 'identity', '*', 'gzip;q=0',
    'identity;q=0', '*;q=0', 'zstd', 'x-unknown', 'gzip;q=abc', ',,,', 'GZIP', `${'gzip,'.repeat(500)}`)),
  fc.tuple(fc.constant('Accept'), fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'nonsense', '')),
  fc.tuple(fc.constantFrom('If-None-Match', 'If-Modified-Since', 'Range', 'If-Range'), fc.constantFrom('W/"abc"', '"x"', '*', 'garbage',
    'Wed, 21 Oct 2015 07:28:00 GMT', 'bytes=0-10', 'bytes=5-1', 'bytes=-1,0-')),
  fc.tuple(fc.constantFrom('Origin', 'Access-Control-Request-Method', 'Access-Control-Request-Headers'), fc.constantFrom('https://evil.example',
    'null', 'GET', 'POST', 'x-foo, content-type', '*')),
  fc.tuple(fc.constantFrom('X-Forwarded-Host', 'X-Forwarded-Proto', 'X-Forwarded-For', 'Forwarded'), fc.constantFrom('evil.example', 'https',
    'gopher', 'a/b', '127.0.0.1, 10.0.0.1', 'for=1.2.3.4;proto=https', '"quoted"')),
  fc.tuple(fc.constantFrom('Cookie', 'Authorization', 'User-Agent', 'Referer', 'X-Request-Id'), fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ''))),
  fc.tuple(fc.constantFrom('Connection', 'Upgrade', 'Expect', 'TE'), fc.constantFrom('Upgrade', 'close', 'keep-alive', 'websocket', 'h2c',
    '100-continue', 'trailers', 'Upgrade, HTTP2-Settings')),
  fc.tuple(fc.constant('X-Big'), fc.integer({ min: 1000, max: 20000 }).map((n) => 'b'.repeat(n))),
  fc.tuple(fc.constant('X-Latin1'), RAW),
  fc.tuple(fc.constantFrom('Content-Type', 'Content-Encoding'), fc.constantFrom('application/json', 'text/plain', 'gzip', 'x-nope',
    'multipart/form-data; boundary=x')),
);

/** A valid URL mutated: its path, its query string, or both. */
function mutatedTarget(urls: readonly string[]): fc.Arbitrary<string> {
  const base = fc.constantFrom(...urls);
  const pathMutation = fc.oneof(
    { weight: 6, arbitrary: fc.constant((p: string) => p) },
    { weight: 4, arbitrary: fc.tuple(PARAM, fc.nat()).map(([param, n]) => (p: string) => {
      const segments = p.split('/');
      const variable = segments.map((s, i) => (i >= 4 && !['results', 'logs', 'actions', 'state'].includes(s) ? i : -1)).filter((i) => i >= 0);
      const at = variable.length ? variable[n % variable.length]! : Math.min(segments.length, 4 + (n % 3));
      segments[at] = param;
      return segments.join('/');
    }) },
    { weight: 2, arbitrary: fc.constantFrom(
      (p: string) => `${p}/`, (p: string) => p.replace('/api/v1/contracts', '/api/v1//contracts'), (p: string) => p.replace('/api/v1/', '/api/v1/./'),
      (p: string) => p.replace('/api/v1/', '/api/v1/x/../'), (p: string) => p.toUpperCase(), (p: string) => p.replace('contracts', 'Contracts'),
      (p: string) => p.replace('results', '%72esults'), (p: string) => `${p}/extra`, (p: string) => `${p}/results/logs/x`,
      (p: string) => p.replace('/api/v1', ''), (p: string) => p.replace(/\/[^/]*$/, ''), (p: string) => `${p};x=1`, (p: string) => `${p}%`,
      (p: string) => `http://127.0.0.1${p}`, (p: string) => p.replace('/api/', '/api%2F'), (p: string) => `${p}#frag`,
    ) },
    // request-target forms (RFC 9112 section 3.2): absolute form (other hosts, schemes, no path, paths
    // not served here), asterisk form, `//` and `/\` paths that a careless proxy would read as a host
    { weight: 2, arbitrary: fc.constantFrom(
      (p: string) => `http://any.host${p}`, (p: string) => `HTTPS://Any.Host:8443${p}`, (p: string) => `http://[::1]:1${p}`,
      (p: string) => `http://evil.example${p.replace('/api/v1/contracts', '/api/v1/accounts')}`, () => 'http://any.host',
      () => 'http://any.host?limit=1', () => 'http://any.host/api/v1/accounts', () => 'ftp://any.host/api/v1/accounts',
      () => 'http://user:pw@any.host/api/v1/network/supply', () => 'http:/api/v1/accounts', () => 'http://', () => '*', () => '*/api/v1/contracts',
      (p: string) => `/${p}`, (p: string) => `//evil.example${p}`, () => '//evil.example/api/v1/accounts', () => '//api/v1/accounts',
      (p: string) => `/\\evil.example${p}`, () => '/\\evil.example/api/v1/accounts', () => '//', () => '///api/v1/accounts',
    ) },
  );
  const queryMutation = fc.oneof(
    { weight: 5, arbitrary: fc.constant((q: string) => q) },
    { weight: 4, arbitrary: fc.array(PAIR, { minLength: 1, maxLength: 6 }).map((pairs) => (q: string) => [q, ...pairs].filter(Boolean).join('&')) },
    { weight: 3, arbitrary: fc.array(PAIR, { maxLength: 8 }).map((pairs) => () => pairs.join('&')) },
    { weight: 1, arbitrary: fc.constantFrom(
      (q: string) => q.replace(/&/g, '&&'), (q: string) => q.replace(/&/g, ';'), (q: string) => q.replace(/=/g, '=='), (q: string) => `${q}&`,
      (q: string) => `&${q}`, (q: string) => `${q}&${q}`, (q: string) => q.replace(/=/, '[]='), (q: string) => `${q}&limit=${'9'.repeat(400)}`,
      (q: string) => `${q}&timestamp=${'gt:1&timestamp='.repeat(200)}1`, (q: string) => `${q}&q=${'x'.repeat(9000)}`, (q: string) => `${q}?a=b`,
      (q: string) => `${q}&%=%`, (q: string) => encodeURIComponent(q),
    ) },
  );
  return fc.tuple(base, pathMutation, queryMutation).map(([url, mp, mq]) => {
    const cut = url.indexOf('?');
    const path = cut < 0 ? url : url.slice(0, cut);
    const query = cut < 0 ? '' : url.slice(cut + 1);
    const q = mq(query);
    return `${mp(path)}${q ? `?${q}` : ''}`;
  });
}

/** Requests built on `urls` (valid request paths over the routes) for a server at host:port. */
export function fuzzRequest(urls: readonly string[], host: string): fc.Arbitrary<FuzzRequest> {
  const framing = fc.oneof(
    { weight: 20, arbitrary: fc.constant({ version: 'HTTP/1.1' as const, lineEnd: '\r\n' as const }) },
    { weight: 1, arbitrary: fc.constantFrom(
      { version: 'HTTP/1.0' as const, lineEnd: '\r\n' as const }, { version: 'HTTP/1.1' as const, lineEnd: '\n' as const }) },
  );
  const body = fc.option(fc.oneof(fc.constantFrom('{}', '{"a":', 'null', 'x=1', '[1,2]'), fc.string({ maxLength: 200 })), { freq: 4, nil: undefined });
  const hostHeader = fc.oneof(
    { weight: 12, arbitrary: fc.constant<string | undefined>(host) },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, '', 'evil.example', 'a b', 'x:99999', '[::1]', `${host}, ${host}`) },
  );
  return fc
    .record({ method: METHODS, target: mutatedTarget(urls), headers: fc.array(HEADER, { maxLength: 4 }), body, framing, host: hostHeader, chunked: fc.boolean() })
    .map(({ method, target, headers, body: text, framing: f, host: h, chunked }) => {
      const all: Array<[string, string]> = h === undefined ? [] : [['Host', h]];
      all.push(...headers);
      const sendsBody = text !== undefined && !['GET', 'HEAD'].includes(method);
      if (sendsBody) all.push(chunked ? ['Transfer-Encoding', 'chunked'] : ['Content-Length', String(Buffer.byteLength(text))]);
      return { method, target, headers: all, body: sendsBody ? text : undefined, version: f.version, lineEnd: f.lineEnd, chunked };
    })
    .map(({ chunked, ...request }) =>
      request.body !== undefined && chunked
        ? { ...request, body: `${Buffer.byteLength(request.body).toString(16)}\r\n${request.body}\r\n0\r\n\r\n` }
        : request,
    );
}

/** The bytes of a request (the target and header values as UTF-8, as a browser would send them). */
export function serialize(r: FuzzRequest): Buffer {
  const lines = [`${r.method} ${r.target} ${r.version}`, ...r.headers.map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(`${lines.join(r.lineEnd)}${r.lineEnd}${r.lineEnd}${r.body ?? ''}`, 'utf8');
}

/**
 * True when the connection should not be reused after this request's answer: the server may answer
 * before it reads a body (417 to an `Expect`, 4xx), and then parses the body as a request of its own
 * whose answer would be taken for the next request's; `Connection`, `Upgrade` and `TE` headers and
 * HTTP/1.0 change what happens to the connection.
 */
export function isolated(r: FuzzRequest): boolean {
  if (r.keepAlive) return false;
  return r.body !== undefined || r.version !== 'HTTP/1.1' || r.headers.some(([k]) => ['expect', 'connection', 'upgrade', 'te'].includes(k.toLowerCase()));
}

/** `count` requests from `seed`, generated in batches (the same seed and count give the same requests). */
export function* fuzzRequests(urls: readonly string[], host: string, seed: number, count: number): Generator<FuzzRequest> {
  const arbitrary = fuzzRequest(urls, host);
  for (let done = 0, batch = 0; done < count; batch++) {
    const n = Math.min(1000, count - done);
    yield* fc.sample(arbitrary, { seed: seed * 100_003 + batch, numRuns: n });
    done += n;
  }
}

/** How a slow reader reads: a few bytes per interval, or nothing after its first read; and when it disconnects. */
const SLOW_PLAN: fc.Arbitrary<SlowPlan> = fc.record({
  mode: fc.constantFrom<SlowPlan['mode']>('trickle', 'stall'),
  bytes: fc.integer({ min: 1, max: 64 }),
  intervalMs: fc.integer({ min: 10, max: 200 }),
  disconnectAfterMs: fc.integer({ min: 50, max: 3000 }),
});

/**
 * A slow reader's request: mostly a valid URL (a big answer: a whole listing as NDJSON, a live or
 * resumed event stream of the logs routes, a page, compressed or not), else a fuzzed request.
 */
export function slowRead(urls: readonly string[], host: string): fc.Arbitrary<SlowRead> {
  const streamed = fc
    .record({
      target: fc.constantFrom(...urls),
      accept: fc.constantFrom<string | undefined>(undefined, 'application/json', 'application/x-ndjson', 'application/x-ndjson', 'text/event-stream', 'text/event-stream'),
      encoding: fc.constantFrom<string | undefined>(undefined, undefined, 'gzip', 'br'),
      lastEventId: fc.option(fc.constantFrom('0-0', '1-0'), { freq: 4, nil: undefined }),
    })
    .map(({ target, accept, encoding, lastEventId }): FuzzRequest => {
      const headers: Array<[string, string]> = [['Host', host]];
      if (accept) headers.push(['Accept', accept]);
      if (encoding) headers.push(['Accept-Encoding', encoding]);
      if (lastEventId && accept === 'text/event-stream') headers.push(['Last-Event-ID', lastEventId]);
      return { method: 'GET', target, headers, version: 'HTTP/1.1', lineEnd: '\r\n' };
    });
  const request = fc.oneof({ weight: 3, arbitrary: streamed }, { weight: 1, arbitrary: fuzzRequest(urls, host) });
  return fc.record({ request, plan: SLOW_PLAN });
}

/** Slow reads from `seed`, `count` of them (by default without end), in batches as fuzzRequests. */
export function* slowReads(urls: readonly string[], host: string, seed: number, count = Infinity): Generator<SlowRead> {
  const arbitrary = slowRead(urls, host);
  for (let done = 0, batch = 0; done < count; batch++) {
    const n = Math.min(100, count - done);
    yield* fc.sample(arbitrary, { seed: seed * 100_003 + 7_000_000 + batch, numRuns: n });
    done += n;
  }
}

/** How a slow reader (slowReader.ts) reads its answer. */
export interface SlowPlan {
  /** `trickle`: `bytes` per read, one read per `intervalMs`; `stall`: one read of up to 1 KB, then none. */
  mode: 'trickle' | 'stall';
  bytes: number;
  intervalMs: number;
  /** The client disconnects (destroys its socket) this long after sending its request. */
  disconnectAfterMs: number;
}

export interface SlowRead {
  request: FuzzRequest;
  plan: SlowPlan;
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC (issue 58): one client's attacks against POST /rpc

/** A POST /rpc with `body` (JSON text, sent as is). */
export function rpcPost(host: string, body: string, contentType = 'application/json'): FuzzRequest {
  return {
    method: 'POST',
    target: '/rpc',
    headers: [['Host', host], ['Content-Type', contentType], ['Content-Length', String(Buffer.byteLength(body))]],
    body,
    version: 'HTTP/1.1',
    lineEnd: '\r\n',
    keepAlive: true,
  };
}

/** `n` distinct addresses, `0x` and 40 hex digits each. */
export function rpcAddresses(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
}

const call = (id: number | string | null, method: unknown, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
const TOPIC = `0x${'dd'.repeat(32)}`;

/**
 * The JSON-RPC attacks of issue 58 as requests, in order: malformed envelopes (`[]`, `42`, a numeric
 * method...), an eth_getLogs with 21,500 addresses (about 980 KB, under rpc.maxBodyBytes) and one
 * with 25,000 (over it), five topics, batches (at and over rpc.maxBatchSize, nested, of
 * eth_getLogs, of eth_newFilter), deep nesting; then `filters` eth_newFilter calls (the issue's
 * 10,000 from one address) and as many eth_uninstallFilter/eth_getFilterChanges on some of them.
 * Their answers must never be a 5xx other than the documented 503, whatever the limits.
 */
export function* rpcRequests(host: string, filters: number): Generator<FuzzRequest> {
  const post = (body: string, type?: string) => rpcPost(host, body, type);
  const many = rpcAddresses(21_500);
  for (const body of ['[]', '42', '"x"', 'null', '{}', '[42]', '[[]]', '{"jsonrpc":"2.0","id":1,"method":123}', '{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":"x"}',
    '{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}', '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"', '',
    `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[${'['.repeat(200)}${']'.repeat(200)}]}`, `${'['.repeat(5000)}${']'.repeat(5000)}`]) {
    yield post(body);
  }
  yield post(call(1, 'eth_chainId'), 'text/xml');
  yield post(call(1, 'eth_getLogs', [{ address: many }]));
  yield post(call(2, 'eth_getLogs', [{ address: many, fromBlock: 'earliest', toBlock: 'latest' }]));
  yield post(call(3, 'eth_newFilter', [{ address: many }]));
  yield post(call(4, 'eth_getLogs', [{ address: rpcAddresses(25_000) }]));
  yield post(call(5, 'eth_getLogs', [{ topics: [TOPIC, TOPIC, TOPIC, TOPIC, TOPIC] }]));
  yield post(call(6, 'eth_getLogs', [{ topics: [[TOPIC, TOPIC], null, TOPIC, null, [TOPIC]] }]));
  yield post(call(7, 'eth_newFilter', [{ topics: [TOPIC, TOPIC, TOPIC, TOPIC, TOPIC] }]));
  yield post(call(8, 'eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]));
  yield post(call(9, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xffffffffffffffffffff' }]));
  const batch = (n: number, item: (i: number) => string) => `[${Array.from({ length: n }, (_, i) => item(i)).join(',')}]`;
  yield post(batch(100, (i) => call(i, 'eth_getLogs', [{ address: many.slice(i * 200, i * 200 + 200) }])));
  yield post(batch(100, (i) => call(i, 'eth_getLogs', [{ topics: [TOPIC, TOPIC, TOPIC, TOPIC] }])));
  yield post(batch(100, (i) => call(i, 'eth_newFilter', [{}])));
  yield post(batch(100, (i) => call(i, 'eth_blockNumber')));
  yield post(batch(101, (i) => call(i, 'eth_chainId')));
  yield post(batch(10_000, (i) => call(i, 'eth_chainId')));
  yield post(batch(50, (i) => (i % 2 ? '42' : call(i, i % 3 ? 'eth_nope' : 123))));
  yield post(batch(20, () => batch(2, (i) => call(i, 'eth_chainId'))));
  yield post(batch(10, (i) => call(i, 'eth_subscribe', ['logs', {}])));
  for (let i = 0; i < filters; i++) {
    yield post(call(i, 'eth_newFilter', [i % 2 ? { address: many[i % many.length] } : { topics: [TOPIC] }]));
    if (i % 100 === 99) {
      yield post(call(i, 'eth_getFilterChanges', [`0x${i.toString(16)}`]));
      yield post(call(i, 'eth_uninstallFilter', [`0x${i.toString(16)}`]));
    }
  }
}

/**
 * `fuzzed` and `rpc` interleaved: one of `rpc` after every `every` of `fuzzed` (the JSON-RPC
 * requests spread over the run), then what is left of either.
 */
export function* interleave<T>(fuzzed: Iterator<T>, rpc: Iterator<T>, every: number): Generator<T> {
  let rpcDone = false;
  for (let i = 1; ; i++) {
    const next = fuzzed.next();
    if (next.done) break;
    yield next.value;
    if (!rpcDone && i % every === 0) {
      const r = rpc.next();
      if (r.done) rpcDone = true;
      else yield r.value;
    }
  }
  if (!rpcDone) for (let r = rpc.next(); !r.done; r = rpc.next()) yield r.value;
}
