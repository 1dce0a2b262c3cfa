/**
 * The catalog of the HTTP layer's error answers (src/http/answer/errorCatalog.ts): every entry in
 * the mirror node's body shape, the messages and headers as the service has always sent them, the
 * writers' bytes (raw, prepared, through Fastify) in their order, and the sites taking their answers
 * from it rather than writing their own.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { type ErrorAnswer, httpErrors } from '../../../src/http/answer/errorCatalog.ts';
import { preparedAnswer } from '../../../src/http/answer/preparedAnswer.ts';
import { rawErrorAnswer } from '../../../src/http/answer/rawAnswer.ts';
import { sendError } from '../../../src/http/answer/respond.ts';
import { badRequest } from '../../../src/http/request/errors.ts';
import { shedAnswer } from '../../../src/http/server/load/admission.ts';
import { refusals } from '../../../src/http/server/load/refusals.ts';
import { StreamLimits, isRefusal } from '../../../src/http/server/streams/limits.ts';

/** Every entry: the constants, and the functions with a sample argument. */
const entries: Record<string, ErrorAnswer> = Object.fromEntries(
  Object.entries(httpErrors).map(([name, entry]) => {
    if (typeof entry !== 'function') return [name, entry];
    const sample = name === 'ofStatus' ? 431 : name === 'clientError' ? badRequest(['a', 'b']) : name === 'invalidHost' ? 'Invalid Host header: more than one' : 7;
    return [name, (entry as (arg: unknown) => ErrorAnswer)(sample)];
  }),
);

const mirrorBody = (messages: readonly string[]) => `{"_status":{"messages":[${messages.map((m) => `{"message":${JSON.stringify(m)}}`).join(',')}]}}`;

test('error catalog: every entry is an error status with the mirror node body of its messages', () => {
  for (const [name, entry] of Object.entries(entries)) {
    assert.ok(entry.status >= 400 && entry.status < 600, name);
    assert.ok(entry.messages.length > 0, name);
    assert.equal(entry.body, mirrorBody(entry.messages), name);
    assert.deepEqual(JSON.parse(entry.body), { _status: { messages: entry.messages.map((message) => ({ message })) } }, name);
    if (entry.retryAfter !== undefined) assert.ok(Number.isInteger(entry.retryAfter) && entry.retryAfter > 0, name);
    assert.ok(Object.isFrozen(entry), name);
  }
});

test('error catalog: the statuses, messages and headers the service has always answered', () => {
  const table = Object.fromEntries(Object.entries(entries).map(([name, { status, messages, retryAfter, close }]) => [name, [status, messages.join(' | '), retryAfter, close]]));
  assert.deepEqual(table, {
    unavailable: [503, 'Service unavailable', 1, undefined],
    shuttingDown: [503, 'Service unavailable', 1, true],
    streamsClosing: [503, 'Service unavailable', 5, undefined],
    tooManyConnections: [429, 'Too many connections from this client: at most 7 at once', 1, undefined],
    tooManyStreams: [429, 'Too many streams from this client: at most 7 at once', 5, true],
    liveStreamsFull: [503, 'Service unavailable: too many live streams open; retry later', 5, true],
    readersFull: [503, 'Service unavailable: too many streams reading; retry later', 5, true],
    invalidHost: [400, 'Invalid Host header: more than one', undefined, true],
    badPath: [400, 'Invalid parameter: contractid', undefined, undefined],
    badRequest: [400, 'Bad request', undefined, undefined],
    notFound: [404, 'Not found', undefined, undefined],
    internal: [500, 'Internal error', undefined, undefined],
    badGateway: [502, 'Bad gateway', undefined, undefined],
    gatewayTimeout: [504, 'Gateway timeout', undefined, undefined],
    ofStatus: [431, 'Request header fields too large', undefined, undefined],
    clientError: [400, 'a | b', undefined, undefined],
  });
  const statuses = [400, 404, 408, 413, 431, 418, 503, 500, 501].map((status) => httpErrors.ofStatus(status).messages[0]);
  assert.deepEqual(statuses, ['Bad request', 'Not found', 'Request timeout', 'Payload too large', 'Request header fields too large', 'Bad request', 'Service unavailable', 'Internal error', 'Internal error']);
});

const SHED_BODY = '{"_status":{"messages":[{"message":"Service unavailable"}]}}';

test('error catalog: raw answers on a socket, byte for byte', () => {
  assert.equal(
    rawErrorAnswer(httpErrors.shuttingDown),
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 60\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${SHED_BODY}`,
  );
  assert.equal(
    rawErrorAnswer(httpErrors.ofStatus(431), true),
    'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 72\r\nConnection: close\r\n\r\n',
  );
  assert.equal(
    rawErrorAnswer(httpErrors.badRequest),
    'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 52\r\nConnection: close\r\n\r\n{"_status":{"messages":[{"message":"Bad request"}]}}',
  );
});

test('error catalog: prepared answers (shedding, the connection caps), byte for byte', () => {
  const shed = preparedAnswer(httpErrors.unavailable, true);
  assert.equal(shed.status, 503);
  assert.equal(shed.body.toString(), SHED_BODY);
  assert.deepEqual(shed.headers, ['Content-Type', 'application/json; charset=utf-8', 'Retry-After', '1', 'access-control-allow-origin', '*', 'vary', 'Accept-Encoding', 'Content-Length', '60']);
  assert.deepEqual(shed.closing, [...shed.headers, 'Connection', 'close']);
  assert.equal(
    shed.rawClose,
    'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\naccess-control-allow-origin: *\r\n' +
      `vary: Accept-Encoding\r\nContent-Length: 60\r\nConnection: close\r\n\r\n${SHED_BODY}`,
  );
  const client = preparedAnswer(httpErrors.tooManyConnections(3), false);
  assert.equal(client.status, 429);
  assert.deepEqual(client.headers, ['Content-Type', 'application/json; charset=utf-8', 'Retry-After', '1', 'access-control-allow-origin', '*', 'Content-Length', String(client.body.length)]);
  // an entry that always closes has no form without Connection: close
  assert.deepEqual(preparedAnswer(httpErrors.tooManyStreams(2), false).headers.slice(-2), ['Connection', 'close']);
});

test('error catalog: through Fastify, Retry-After and Connection come before the content type', async () => {
  const app = Fastify();
  app.get('/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    return sendError(reply, name === 'streams' ? httpErrors.tooManyStreams(2) : name === 'closing' ? httpErrors.streamsClosing : httpErrors.notFound);
  });
  try {
    const streams = await app.inject('/streams');
    assert.equal(streams.statusCode, 429);
    assert.equal(streams.body, '{"_status":{"messages":[{"message":"Too many streams from this client: at most 2 at once"}]}}');
    assert.deepEqual(Object.keys(streams.headers).slice(0, 4), ['retry-after', 'connection', 'content-type', 'etag']);
    assert.equal(streams.headers['retry-after'], '5');
    assert.equal(streams.headers.connection, 'close');
    const closing = await app.inject('/closing');
    assert.equal(closing.statusCode, 503);
    assert.equal(closing.headers['retry-after'], '5');
    assert.equal(closing.body, SHED_BODY);
    const missing = await app.inject('/missing');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['retry-after'], undefined);
    assert.equal(missing.body, '{"_status":{"messages":[{"message":"Not found"}]}}');
  } finally {
    await app.close();
  }
});

test('error catalog: the sites answer the catalog entries (shedding, connection caps, stream limits)', () => {
  for (const vary of [false, true]) {
    assert.deepEqual(shedAnswer(vary), preparedAnswer(httpErrors.unavailable, vary));
    const refused = refusals(3, vary, () => {});
    assert.equal(refused.raw('capacity'), preparedAnswer(httpErrors.unavailable, vary).rawClose);
    assert.equal(refused.raw('client'), preparedAnswer(httpErrors.tooManyConnections(3), vary).rawClose);
  }
  const limits = new StreamLimits({ maxPerClient: 1, maxReaders: 1, maxConcurrentReads: 1, maxLive: 1, maxBufferedBytes: 262144 }, new Registry());
  const first = limits.place('events', 'a', true);
  assert.ok(!isRefusal(first));
  assert.deepEqual(limits.place('events', 'a', false), httpErrors.tooManyStreams(1));
  assert.equal(limits.place('events', 'b', false), httpErrors.liveStreamsFull);
  assert.equal(limits.place('ndjson', 'c', true), httpErrors.readersFull);
  first.close();
});

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });

test('error catalog: no file of src/http/server writes an error message or Retry-After of its own', () => {
  const own = [/['"`]Service unavailable/, /['"`]Too many /, /['"]retry-after['"]/i];
  const found = files(join(ROOT, 'src', 'http', 'server')).flatMap((file) => {
    // the code, not its comments (which name the answers they send)
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    return own.filter((pattern) => pattern.test(text)).map((pattern) => `${relative(ROOT, file)}: ${pattern}`);
  });
  assert.deepEqual(found, []);
});
