import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { routes } from '../../../../src/app.ts';
import { ConfigError, loadConfig } from '../../../../src/config/config.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { ROOT } from '../../../cli/run.ts';
import { fakeDb } from '../../../support/database.ts';
import { RawConnection } from '../../../support/rawHttp.ts';

/**
 * Routes served nowhere here go to the upstream (a local HTTP server here) as they came, and its
 * answers come back as they are; the routes served here never go there; an upstream that is down
 * or slow is a 502 or 504 in the mirror node's error shape, logged once per change.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The upstream: records every request; some paths answer in particular ways. */
function upstreamServer() {
  const seen: Seen[] = [];
  let releaseStream: (() => void) | undefined;
  const streamReleased = () => new Promise<void>((resolve) => (releaseStream = resolve));
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const path = req.url!.replace(/^\/mirror/, '').split('?')[0];
    if (path === '/api/v1/slow') {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      res.end('late');
    } else if (path === '/api/v1/stream') {
      // the second half is written only once the client has read the first: a buffering proxy hangs here
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first half;');
      await streamReleased();
      res.end('second half');
    } else if (path === '/api/v1/unavailable') {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '7' });
      res.end('{"_status":{"messages":[{"message":"Service Unavailable"}]}}');
    } else {
      res.writeHead(path === '/api/v1/teapot' ? 418 : 200, { 'content-type': 'application/json', 'x-upstream': 'yes', 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ method: req.method, url: req.url, length: body.length }));
    }
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  return {
    seen,
    release: () => releaseStream?.(),
    async start(port = 0): Promise<number> {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function capture() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

/** A request over real HTTP: the answer's status, headers and body. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | Buffer[]) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    // several parts: sent with chunked transfer encoding, one write at a time
    for (const part of Array.isArray(body) ? body : body ? [body] : []) req.write(part);
    req.end();
  });
}

const upstream = upstreamServer();
const { lines, logger } = capture();
let upstreamPort: number;
let app: FastifyInstance;
let port: number;

before(async () => {
  upstreamPort = await upstream.start();
  const config = loadConfig({ UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}/mirror/`, HIERO_MIRROR_REST_UPSTREAM_TIMEOUT: '300' }, '/nonexistent');
  app = buildApp({ config, db: fakeDb(), routes, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

after(async () => {
  await app.close();
  await upstream.stop();
});

test('upstream.url, UPSTREAM_URL and HIERO_MIRROR_REST_UPSTREAM_URL: an http(s) URL, honoured without a warning', () => {
  assert.equal(loadConfig({}, '/nonexistent').upstream.url, undefined);
  const env = loadConfig({ HIERO_MIRROR_REST_UPSTREAM_URL: 'https://mainnet.example.com' }, '/nonexistent');
  assert.equal(env.upstream.url?.href, 'https://mainnet.example.com/');
  assert.equal(env.upstream.timeoutMs, 20_000);
  assert.deepEqual(env.warnings, []);
  const shortcut = loadConfig({ HIERO_MIRROR_REST_UPSTREAM_URL: 'https://a.example.com', UPSTREAM_URL: 'http://b.example.com:5551' }, '/nonexistent');
  assert.equal(shortcut.upstream.url?.href, 'http://b.example.com:5551/');
  for (const bad of ['mirror.example.com', 'ftp://mirror.example.com', 'https://mirror.example.com/?a=1', 'https://user:pw@mirror.example.com']) {
    assert.throws(
      () => loadConfig({ UPSTREAM_URL: bad }, '/nonexistent'),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith('Invalid configuration: upstream.url must be an http or https URL'),
      bad,
    );
  }
});

test('GET with query string and headers: passed through as it came; the answer comes back as it is', async () => {
  const before = upstream.seen.length;
  const res = await send(port, 'GET', '/api/v1/accounts?account.id=gte:0.0.1000&limit=2&order=desc', { 'x-custom': 'one', authorization: 'Bearer t', 'x-request-id': 'req-7' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['x-upstream'], 'yes');
  assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2']);
  assert.equal(res.headers['x-request-id'], 'req-7');
  assert.deepEqual(JSON.parse(res.body), { method: 'GET', url: '/mirror/api/v1/accounts?account.id=gte:0.0.1000&limit=2&order=desc', length: 0 });
  const seen = upstream.seen.slice(before);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.headers['x-custom'], 'one');
  assert.equal(seen[0]!.headers.authorization, 'Bearer t');
  assert.equal(seen[0]!.headers['x-request-id'], 'req-7');
  assert.equal(seen[0]!.headers.host, `127.0.0.1:${upstreamPort}`);

  // other statuses and a 503 are passed back once, not retried
  const teapot = await send(port, 'GET', '/api/v1/teapot');
  assert.equal(teapot.status, 418);
  const count = upstream.seen.length;
  const unavailable = await send(port, 'GET', '/api/v1/unavailable');
  assert.deepEqual([unavailable.status, unavailable.headers['retry-after'], unavailable.body], [503, '7', '{"_status":{"messages":[{"message":"Service Unavailable"}]}}']);
  assert.equal(upstream.seen.length, count + 1);
});

test('POST with a JSON body: the same bytes reach the upstream (big numbers, spacing, chunked or gzip-encoded)', async () => {
  const json = Buffer.from('{"data":"0x70a08231", "to":"0x00000000000000000000000000000000000003e9","value":123456789012345678901234567890,"gas":15000000}');
  const before = upstream.seen.length;
  const plain = await send(port, 'POST', '/api/v1/contracts/call', { 'content-type': 'application/json', 'content-length': String(json.length) }, json);
  assert.equal(plain.status, 200);
  assert.deepEqual(JSON.parse(plain.body), { method: 'POST', url: '/mirror/api/v1/contracts/call', length: json.length });
  const chunked = await send(port, 'POST', '/api/v1/contracts/call', { 'content-type': 'application/json' }, [json.subarray(0, 10), json.subarray(10)]);
  assert.equal(chunked.status, 200);
  const gzipped = gzipSync(json);
  const encoded = await send(port, 'POST', '/api/v1/contracts/call', { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(gzipped.length) }, gzipped);
  assert.equal(encoded.status, 200);
  const noType = await send(port, 'PUT', '/api/v1/anything', { 'content-length': '3' }, Buffer.from('abc'));
  assert.equal(noType.status, 200);
  const seen = upstream.seen.slice(before);
  assert.deepEqual(seen.map((s) => s.body), [json, json, gzipped, Buffer.from('abc')]);
  assert.equal(seen[2]!.headers['content-encoding'], 'gzip');
  assert.deepEqual(seen.map((s) => s.method), ['POST', 'POST', 'POST', 'PUT']);
});

test('answers stream through: the client reads the first part before the upstream writes the second', async () => {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/stream`);
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.equal(Buffer.from(first.value!).toString(), 'first half;');
  upstream.release();
  let rest = '';
  for (let part = await reader.read(); !part.done; part = await reader.read()) rest += Buffer.from(part.value).toString();
  assert.equal(rest, 'second half');
});

test('routes served here are never proxied, whatever they answer; routes served nowhere here are', async () => {
  const before = upstream.seen.length;
  const ours: Array<[string, number]> = [
    ['/api/v1/contracts/abc', 400],
    ['/api/v1/contracts/0.0.1001', 404],
    ['/api/v1/contracts/0.0.1001/results?limit=x', 400],
    ['/api/v1/contracts/results/0xzz', 400],
    ['/health/liveness', 200],
    ['/', 200],
  ];
  for (const [path, status] of ours) {
    const res = await send(port, 'GET', path);
    assert.equal(res.status, status, path);
    assert.equal(res.headers['x-upstream'], undefined, path);
  }
  assert.equal(upstream.seen.length, before, 'nothing reached the upstream');
  const hash = `0x${'ab'.repeat(32)}`;
  for (const path of ['/api/v1/tokens', `/api/v1/contracts/results/${hash}/opcodes`, '/api/v1/network/supply', '/api/v2/whatever']) {
    const res = await send(port, 'GET', path);
    assert.equal(res.status, 200, path);
    assert.equal(JSON.parse(res.body).url, `/mirror${path}`);
  }
  const post = await send(port, 'POST', '/api/v1/contracts/0.0.1001', { 'content-type': 'application/json', 'content-length': '2' }, Buffer.from('{}'));
  assert.equal(JSON.parse(post.body).method, 'POST', 'a method not served here on a served path goes upstream');
});

/** Raw targets (absolute form, asterisk form, `//` paths) that no client library sends as they are. */
async function rawTarget(port: number, method: string, target: string): Promise<{ status: number; body: string }> {
  const client = await RawConnection.open(port);
  try {
    client.write(`${method} ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    // a whole answer: its Content-Length, or the last chunk of a chunked one
    const whole = (text: string) => {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      if (method === 'HEAD') return true;
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
      return length ? text.length >= end + 4 + Number(length[1]) : text.endsWith('\r\n0\r\n\r\n');
    };
    const deadline = Date.now() + 5000;
    while (!whole(client.rest()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const text = client.rest();
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
  } finally {
    client.destroy();
  }
}

test('every request target form (RFC 9112 section 3.2): absolute form served by its path, asterisk form 400, `//` paths kept on the upstream; never a 5xx', async () => {
  // with a path prefix (this file's upstream) and without one
  const bare = buildApp({ config: loadConfig({ UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}` }, '/nonexistent'), db: fakeDb(), routes });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePort = (bare.server.address() as AddressInfo).port;
  try {
    for (const [proxy, prefix] of [[port, '/mirror'], [barePort, '']] as const) {
      // a status of 0: whatever the router makes of it (the home page, a preflight's 204), never a 5xx and never passed on
      const cases: Array<[string, string, number, string | undefined]> = [
        ['GET', 'http://any.host/api/v1/accounts?limit=1', 200, '/api/v1/accounts?limit=1'],
        ['GET', 'HTTP://ANY.HOST:99/api/v1/accounts', 200, '/api/v1/accounts'],
        ['GET', 'https://any.host', 200, undefined], // the home page, served here
        ['GET', 'http://any.host/api/v1?x=1', 200, '/api/v1?x=1'],
        ['GET', '//api/v1/accounts', 200, '//api/v1/accounts'],
        ['GET', '//evil.example/api/v1/accounts', 200, '//evil.example/api/v1/accounts'],
        ['GET', '/\\evil.example/api', 200, '//evil.example/api'],
        ['GET', '*', 0, undefined],
        ['OPTIONS', '*', 0, undefined],
        ['HEAD', '*', 0, undefined],
        ['DELETE', '*', 400, undefined],
        ['POST', 'http://any.host', 200, '/'],
        ['GET', 'http://any.host/api/v1/contracts/0.0.1001', 404, undefined],
        ['GET', 'ftp://any.host/api/v1/accounts', 400, undefined], // no absolute form of this service's
      ];
      for (const [method, target, status, reached] of cases) {
        const before = upstream.seen.length;
        const res = await rawTarget(proxy, method, target);
        if (status === 0) assert.ok(res.status < 500, `${method} ${target} (prefix ${JSON.stringify(prefix)}): ${res.status}`);
        else assert.equal(res.status, status, `${method} ${target} (prefix ${JSON.stringify(prefix)}): ${res.body}`);
        if (reached === undefined) assert.equal(upstream.seen.length, before, `${target}: not passed on`);
        else assert.equal(upstream.seen.at(-1)!.url, `${prefix}${reached}`, `${target}: passed on by its path, to the upstream's origin`);
      }
    }
  } finally {
    await bare.close();
  }
});

test('hop-by-hop headers (Upgrade, Expect, TE, Keep-Alive) are not passed on: the upstream answers, not a 502', async () => {
  const before = upstream.seen.length;
  for (const [name, value] of [['upgrade', 'websocket'], ['expect', '100-continue'], ['te', 'trailers'], ['keep-alive', 'timeout=5'], ['proxy-connection', 'keep-alive']] as const) {
    const res = await send(port, 'GET', '/api/v1/accounts', { [name]: value });
    assert.equal(res.status, 200, `${name}: ${res.body}`);
    assert.equal(upstream.seen.at(-1)!.headers[name], undefined, `${name} not passed on`);
  }
  assert.equal(upstream.seen.length, before + 5);
});

test('an upstream that is slow (504) or down (502): the mirror error shape, one log line per change', async () => {
  lines.length = 0;
  const slow = await send(port, 'GET', '/api/v1/slow');
  assert.deepEqual([slow.status, slow.body], [504, '{"_status":{"messages":[{"message":"Gateway timeout"}]}}']);
  assert.equal((await send(port, 'GET', '/api/v1/accounts')).status, 200);

  await upstream.stop();
  for (let i = 0; i < 3; i++) {
    const down = await send(port, 'GET', '/api/v1/accounts', { 'x-request-id': `down-${i}` });
    assert.deepEqual([down.status, down.body], [502, '{"_status":{"messages":[{"message":"Bad gateway"}]}}']);
    assert.equal(down.headers['x-request-id'], `down-${i}`);
    assert.equal(down.headers['content-type'], 'application/json; charset=utf-8');
  }
  await upstream.start(upstreamPort);
  assert.equal((await send(port, 'GET', '/api/v1/accounts')).status, 200);

  const origin = `http://127.0.0.1:${upstreamPort}`;
  const others = lines.filter((l) => l.msg !== 'request');
  assert.deepEqual(others.map((l) => l.level), [40, 30, 40, 30], JSON.stringify(others));
  assert.match(others[0]!.msg, new RegExp(`^upstream ${origin} failing: .*[Tt]imeout.*; answering 504 until it answers again$`));
  assert.equal(others[1]!.msg, `upstream ${origin} answers again`);
  assert.match(others[2]!.msg, new RegExp(`^upstream ${origin} failing: .*ECONNREFUSED.*; answering 502 until it answers again$`));
  assert.equal(others[3]!.msg, `upstream ${origin} answers again`);
  assert.ok(!JSON.stringify(lines).includes('"stack"'), 'no stack traces');
});

test('without upstream.url, routes served nowhere here answer the reference 404', async () => {
  const plain = buildApp({ config: loadConfig({}, '/nonexistent'), db: fakeDb(), routes });
  const res = await plain.inject({ method: 'POST', url: '/api/v1/contracts/call', payload: { data: '0x' } });
  assert.deepEqual([res.statusCode, res.body], [404, '{"_status":{"messages":[{"message":"Not found"}]}}']);
  await plain.close();
});

test("an https upstream's certificate is checked: one this machine does not trust is a 502", async () => {
  const fixtures = join(ROOT, 'test', 'fixtures', 'tls');
  const secure = createHttpsServer({ key: readFileSync(join(fixtures, 'server.key')), cert: readFileSync(join(fixtures, 'server.crt')) }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  const { lines: logged, logger: log } = capture();
  const config = loadConfig({ UPSTREAM_URL: `https://127.0.0.1:${(secure.address() as AddressInfo).port}` }, '/nonexistent');
  const proxy = buildApp({ config, db: fakeDb(), routes, logger: log });
  try {
    const res = await proxy.inject('/api/v1/accounts');
    assert.deepEqual([res.statusCode, res.body], [502, '{"_status":{"messages":[{"message":"Bad gateway"}]}}']);
    assert.match(logged.find((l) => l.msg.startsWith('upstream'))!.msg, /failing: .*(certificate|UNABLE_TO_VERIFY)/i);
  } finally {
    await proxy.close();
    await new Promise<void>((resolve) => secure.close(() => resolve()));
  }
});
