/**
 * The documentation cannot drift from the answers: every answer of the conformance suite (both spec
 * folders, replayed on the embedded database) is validated against the schema that the published
 * OpenAPI document gives for its route and status. A status a route answers must be documented, and
 * every documented route must be seen answering 200 at least once.
 */
import assert from 'node:assert/strict';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { routes } from '../../../src/app.ts';
import { openApiPath } from '../../../src/http/docs/openapi.ts';
import { replaySpec } from '../../conformance/replay.ts';
import { findSpecFiles, readSpecFile } from '../../conformance/specFile.ts';
import { openTestDatabase } from '../../support/database.ts';
import { type OpenApiDocument, openApiDocument } from './document.ts';

const CONFORMANCE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'conformance');
const SPEC_FOLDERS = ['specs', 'specs-extra'].map((folder) => join(CONFORMANCE, folder));

/** A JSON pointer token (RFC 6901). */
const pointer = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** Ajv (strict) holding the OpenAPI document as the schema `openapi.json`, its fields other than schemas as annotations. */
function documentAjv(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  for (const keyword of ['openapi', 'info', 'paths', 'components', 'tags']) ajv.addKeyword(keyword);
  ajv.addSchema(document, 'openapi.json');
  return ajv;
}

test('every answer of the conformance suite matches the documented schema of its route and status', { timeout: 300_000 }, async () => {
  const document = await openApiDocument();
  const ajv = documentAjv(document);
  const validators = new Map<string, ValidateFunction>();
  /** The validator of a documented answer, or undefined when the operation does not document that status. */
  const validatorOf = (path: string, status: number): ValidateFunction | undefined => {
    const key = `${path} ${status}`;
    if (!validators.has(key)) {
      if (document.paths[path]?.get?.responses?.[status] === undefined) return undefined;
      const schema = `openapi.json#/paths/${pointer(path)}/get/responses/${status}/content/${pointer('application/json')}/schema`;
      validators.set(key, ajv.compile({ $ref: schema }));
    }
    return validators.get(key);
  };
  const errorBody = ajv.compile({ $ref: 'openapi.json#/components/schemas/Error' });

  const problems: string[] = [];
  const okByPath = new Map<string, number>();
  let validated = 0;
  const database = await openTestDatabase('embedded');
  try {
    for (const file of findSpecFiles(SPEC_FOLDERS)) {
      const spec = readSpecFile(file, dirname(file));
      for await (const { testCase, response, route } of replaySpec(database.db, spec)) {
        const where = `${relative(CONFORMANCE, file)}: GET ${testCase.url} (${response.statusCode})`;
        const body: unknown = JSON.parse(response.body);
        const path = route === undefined ? undefined : openApiPath(route);
        let validate: ValidateFunction | undefined;
        if (path === undefined) {
          // no route answered (the 404 handler, an undecodable path): the error body
          validate = errorBody;
        } else {
          validate = validatorOf(path, response.statusCode);
          if (validate === undefined) {
            problems.push(`${where}: status ${response.statusCode} of ${path} is not documented`);
            continue;
          }
          if (response.statusCode === 200) okByPath.set(path, (okByPath.get(path) ?? 0) + 1);
        }
        validated++;
        if (!validate(body)) {
          const errors = ajv.errorsText(validate.errors, { separator: '\n    ', dataVar: 'body' });
          problems.push(`${where}\n    ${errors}`);
        }
      }
    }
  } finally {
    await database.close();
  }
  assert.deepEqual(problems, [], `${problems.length} answers do not match the documentation:\n${problems.slice(0, 40).join('\n')}`);
  assert.ok(validated >= 600, `only ${validated} answers validated`);
  for (const route of routes) {
    assert.ok((okByPath.get(openApiPath(route.path)) ?? 0) > 0, `no 200 answer of ${route.path} was validated`);
  }
});

test('the schemas are strict: an answer with a key too many, a key missing or a wrong type is refused', async () => {
  const document = await openApiDocument();
  const ajv = documentAjv(document);
  const logs = ajv.compile({ $ref: 'openapi.json#/components/schemas/ContractLogsResponse' });
  const log = {
    address: '0x00000000000000000000000000000000000007d1',
    bloom: '0x',
    contract_id: '0.0.2001',
    data: '0x',
    index: 0,
    topics: [`0x${'ab'.repeat(32)}`],
    block_hash: `0x${'cd'.repeat(48)}`,
    block_number: 10,
    root_contract_id: null,
    timestamp: '1748736000.000000001',
    transaction_hash: `0x${'ef'.repeat(32)}`,
    transaction_index: 1,
  };
  assert.ok(logs({ logs: [log], links: { next: null } }), ajv.errorsText(logs.errors));
  const { index: _index, ...withoutIndex } = log;
  for (const bad of [{ ...log, extra: 1 }, withoutIndex, { ...log, index: '0' }, { ...log, timestamp: '1748736000' }, { ...log, contract_id: null }]) {
    assert.equal(logs({ logs: [bad], links: { next: null } }), false, JSON.stringify(bad));
  }
  assert.equal(logs({ logs: [log] }), false, 'links is required');
});
