import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { routes } from '../../../../src/app.ts';
import { loadConfig } from '../../../../src/config/config.ts';
import { openApiPath } from '../../../../src/http/server/plugins/home.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { ROOT } from '../../../cli/run.ts';
import { fakeDb } from '../../../support/database.ts';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

test('GET / answers the JSON index: name, version, docs, health, metrics and every route', async () => {
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db: fakeDb(), routes });
  try {
    const res = await app.inject('/');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(res.json(), {
      name: 'contract-query-service',
      version,
      docs: { ui: '/api/v1/docs', openapiYaml: '/api/v1/docs/openapi.yml', openapiJson: '/api/v1/docs/openapi.json' },
      health: { liveness: '/health/liveness', readiness: '/health/readiness' },
      metrics: ['/metrics', '/swagger/metrics/'],
      routes: [
        'GET /api/v1/contracts',
        'GET /api/v1/contracts/results',
        'GET /api/v1/contracts/results/logs',
        'GET /api/v1/contracts/results/{transactionIdOrHash}',
        'GET /api/v1/contracts/results/{transactionIdOrHash}/actions',
        'GET /api/v1/contracts/{contractId}',
        'GET /api/v1/contracts/{contractId}/results',
        'GET /api/v1/contracts/{contractId}/results/logs',
        'GET /api/v1/contracts/{contractId}/results/{timestamp}',
        'GET /api/v1/contracts/{contractId}/state',
      ],
    });
    // every link of the index that this app serves answers
    const index = res.json() as { health: Record<string, string>; metrics: string[] };
    for (const url of [...Object.values(index.health), ...index.metrics]) assert.equal((await app.inject(url)).statusCode, 200, url);
    assert.equal((await app.inject({ method: 'HEAD', url: '/' })).statusCode, 200);
  } finally {
    await app.close();
  }
});

test('the index says when other routes go to an upstream', async () => {
  const app = buildApp({ config: loadConfig({ UPSTREAM_URL: 'http://127.0.0.1:9' }, '/nonexistent'), db: fakeDb(), routes });
  try {
    assert.equal((await app.inject('/')).json().upstream, 'other routes are answered by the upstream mirror node');
  } finally {
    await app.close();
  }
});

test('route paths in OpenAPI notation', () => {
  assert.equal(openApiPath('/api/v1/contracts/:contractId/results/:timestamp(^[0-9.]+$)'), '/api/v1/contracts/{contractId}/results/{timestamp}');
  assert.equal(openApiPath('/api/v1/contracts'), '/api/v1/contracts');
});
