/**
 * The API documentation: the OpenAPI document at /api/v1/docs/openapi.yml and .json, Swagger UI at
 * /api/v1/docs served from node_modules; the document lists exactly the contract routes; the route
 * schemas only document (answers are what the handlers make of the raw request).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { routes } from '../../../src/app.ts';
import { openApiPath } from '../../../src/http/docs/openapi.ts';
import { VERSION } from '../../../src/version.ts';
import { fakeDb } from '../../support/database.ts';
import { appOn } from '../../support/app.ts';
import type { FastifyInstance } from 'fastify';
import { type OpenApiDocument, openApiDocument } from './document.ts';

let app: FastifyInstance;
let document: OpenApiDocument;
before(async () => {
  app = appOn(fakeDb());
  document = await openApiDocument();
});
after(() => app.close());

test('the document is served as YAML (.yml and .yaml) and JSON, the same document', async () => {
  const json = await app.inject('/api/v1/docs/openapi.json');
  assert.equal(json.statusCode, 200);
  assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
  for (const url of ['/api/v1/docs/openapi.yml', '/api/v1/docs/openapi.yaml']) {
    const yaml = await app.inject(url);
    assert.equal(yaml.statusCode, 200, url);
    assert.equal(yaml.headers['content-type'], 'text/yaml; charset=utf-8', url);
    assert.deepEqual(parse(yaml.body), JSON.parse(json.body), url);
  }
  assert.deepEqual(JSON.parse(json.body), document);
});

test('info: title, the package version, a description; OpenAPI 3.1', () => {
  assert.equal(document.openapi, '3.1.0');
  assert.equal(document.info.title, 'contract-query-service');
  assert.equal(document.info.version, VERSION);
  assert.match(document.info.description, /mirror node REST API 0\.129\.1/);
});

test('the paths are exactly the contract routes, named as the reference names them, and /rpc; health, metrics and docs are hidden', () => {
  const expected = [
    '/api/v1/contracts',
    '/api/v1/contracts/{contractIdOrAddress}',
    '/api/v1/contracts/{contractIdOrAddress}/results',
    '/api/v1/contracts/{contractIdOrAddress}/results/logs',
    '/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}',
    '/api/v1/contracts/{contractIdOrAddress}/state',
    '/api/v1/contracts/results',
    '/api/v1/contracts/results/logs',
    '/api/v1/contracts/results/{transactionIdOrHash}',
    '/api/v1/contracts/results/{transactionIdOrHash}/actions',
  ];
  assert.deepEqual(Object.keys(document.paths).sort(), [...expected, '/rpc'].sort());
  assert.deepEqual(routes.map((r) => openApiPath(r.path)).sort(), expected.sort());
  for (const path of expected) {
    const item = document.paths[path]!;
    assert.deepEqual(Object.keys(item), ['get'], path);
    const operation = item.get!;
    assert.deepEqual(operation.tags, ['contracts'], path);
    assert.ok(operation.responses['200']?.content?.['application/json']?.schema, `${path}: 200 body`);
    assert.ok(operation.responses['400']?.content?.['application/json']?.schema, `${path}: 400 body`);
    // every path parameter of the template is documented, required
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pathParameters = (operation.parameters ?? []).filter((p) => p.in === 'path');
    assert.deepEqual(pathParameters.map((p) => p.name), names, path);
    assert.ok(pathParameters.every((p) => p.required), path);
  }
  assert.equal(new Set(expected.map((path) => document.paths[path]!.get!.operationId)).size, expected.length, 'operation ids are unique');
});

test('/rpc: one POST operation, a JSON-RPC request or a batch, its answers and errors', async () => {
  const rpc = document.paths['/rpc']!;
  assert.deepEqual(Object.keys(rpc), ['post']);
  assert.deepEqual(rpc.post!.tags, ['json-rpc']);
  for (const status of ['200', '400', '413', '415', '500']) assert.ok(rpc.post!.responses[status]?.content?.['application/json']?.schema, status);
  // documentation only: a request the schema describes as invalid reaches the endpoint, which answers as the relay
  const response = await app.inject({ method: 'POST', url: '/rpc', headers: { 'content-type': 'application/json' }, payload: '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}' });
  assert.notEqual(response.statusCode, 500);
  assert.match(response.body, /"jsonrpc":"2.0"/);
});

test('query parameters: operator forms as string patterns, repeatable filters as arrays', () => {
  const logs = document.paths['/api/v1/contracts/{contractIdOrAddress}/results/logs']!.get!;
  const query = Object.fromEntries((logs.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
  assert.deepEqual(Object.keys(query), ['index', 'limit', 'order', 'timestamp', 'topic0', 'topic1', 'topic2', 'topic3', 'block.number', 'lastEventId']);
  // the additions (issue 27): block.number ranges, 0x hex or decimal
  const block = new RegExp((query['block.number']!.items as { pattern: string }).pattern);
  for (const value of ['80000000', 'gte:0x4c4b400', 'lt:1', 'eq:5']) assert.match(value, block);
  for (const value of ['ne:1', 'gte:', 'x:1', '1.5']) assert.doesNotMatch(value, block);
  const timestamp = new RegExp((query.timestamp!.items as { pattern: string }).pattern);
  for (const value of ['1748736000', 'gte:1748736000.5', 'lt:1748736000.000000001', 'eq:1']) assert.match(value, timestamp);
  for (const value of ['ne:1', 'gte:', 'x:1', '1748736000.1234567890']) assert.doesNotMatch(value, timestamp);
  assert.deepEqual(query.order, { type: 'string', enum: ['asc', 'desc'], default: 'desc' });
  // listings document their NDJSON answer and the Indexed-Through header
  const ok = logs.responses!['200'] as unknown as { content: Record<string, unknown>; headers: Record<string, unknown> };
  assert.deepEqual(Object.keys(ok.content).sort(), ['application/json', 'application/x-ndjson', 'text/event-stream']);
  assert.ok(ok.headers['Indexed-Through']);
});

test('Swagger UI at /api/v1/docs (with and without the slash), its files from node_modules, no CDN', async () => {
  for (const url of ['/api/v1/docs', '/api/v1/docs/']) {
    const page = await app.inject(url);
    assert.equal(page.statusCode, 200, url);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(sources.some((s) => s.endsWith('/swagger-ui-bundle.js')), page.body);
    for (const source of sources) {
      assert.doesNotMatch(source, /^(https?:)?\/\//, `${source} is not served by the app`);
      const asset = await app.inject(new URL(source, `http://localhost${url}`).pathname);
      assert.equal(asset.statusCode, 200, source);
    }
  }
  const initializer = await app.inject('/api/v1/docs/static/swagger-initializer.js');
  assert.match(initializer.body, /validatorUrl: null/);
});

test('the 404 handler still answers paths under /api/v1/docs that are not the docs', async () => {
  for (const url of ['/api/v1/docs/nothing', '/api/v1/docs/static/nothing.js', '/api/v1/docs/openapi.txt']) {
    const response = await app.inject(url);
    assert.equal(response.statusCode, 404, url);
    assert.equal(response.body, '{"_status":{"messages":[{"message":"Not found"}]}}', url);
  }
});

test('the schemas only document: requests they would refuse reach the handlers, which answer with the reference messages', async () => {
  const cases: Array<[string, number, string]> = [
    // the path pattern of contractIdOrAddress refuses these; Fastify's validator would answer "Bad request"
    ['/api/v1/contracts/abc', 400, 'Invalid parameter: contractid'],
    ['/api/v1/contracts/abc/results/logs', 400, 'Invalid parameter: contractid'],
    ['/api/v1/contracts/results/xyz', 400, 'Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds'],
    ['/api/v1/contracts?limit=0&order=up', 400, 'Invalid parameter: limit'],
  ];
  for (const [url, status, message] of cases) {
    const response = await app.inject(url);
    assert.equal(response.statusCode, status, url);
    assert.equal(JSON.parse(response.body)._status.messages[0].message, message, url);
  }
});
