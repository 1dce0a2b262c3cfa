import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../../../src/config/config.ts';
import { contractLookupRoute } from '../../../../src/contracts/contract/lookupRoute.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { fakeDb } from '../../../support/database.ts';

/** A logger whose JSON lines land in `lines`. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

test('one access line per request with method, url, status, time and request id; ids passed through or made', async () => {
  const { lines, logger } = capture();
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db: fakeDb(), routes: [contractLookupRoute], logger });
  const given = await app.inject({ url: '/api/v1/contracts/abc?x=1', headers: { 'x-request-id': 'req-42' } });
  assert.equal(given.statusCode, 400);
  assert.equal(given.headers['x-request-id'], 'req-42');
  const made = await app.inject({ url: '/api/v1/contracts/0.0.1001', headers: { 'x-request-id': 'bad id with spaces' } });
  assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  await app.close();
  const access = lines.filter((l) => l.msg === 'request');
  assert.equal(access.length, 2);
  assert.equal(access[0]!.reqId, 'req-42');
  assert.equal(access[0]!.method, 'GET');
  assert.equal(access[0]!.url, '/api/v1/contracts/abc?x=1');
  assert.equal(access[0]!.status, 400);
  assert.equal(typeof access[0]!.ms, 'number');
  assert.equal(access[1]!.status, 404);
  assert.equal(access[1]!.reqId, made.headers['x-request-id']);
  assert.equal(lines.length, 2, 'client errors log nothing else');
});

test('a database outage is logged once when it begins and once when it ends, without stacks', async () => {
  const { lines, logger } = capture();
  let down = true;
  const db = fakeDb(async () => {
    if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    return [];
  });
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db, routes: [contractLookupRoute], logger });
  for (let i = 0; i < 3; i++) assert.equal((await app.inject('/api/v1/contracts/0.0.1001')).statusCode, 503);
  down = false;
  for (let i = 0; i < 2; i++) assert.equal((await app.inject('/api/v1/contracts/0.0.1001')).statusCode, 404);
  await app.close();
  const others = lines.filter((l) => l.msg !== 'request');
  assert.ok(others.every((l) => !JSON.stringify(l).includes('"stack"')), 'no stack traces');
  assert.deepEqual(
    others.map((l) => l.msg),
    ['database statements are failing: connect ECONNREFUSED 127.0.0.1:5432; answering 503 until they succeed again', 'database statements succeed again'],
  );
});
