/** The conformance runner refuses paths that give it nothing to run, instead of reporting "0 passed, 0 failed". */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function runner(...paths: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'test/conformance/run.ts', ...paths], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEST_DATABASE_URL: '' },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cqs-conformance-'));
  mkdirSync(join(dir, 'empty'));
  mkdirSync(join(dir, 'no-specs'));
  writeFileSync(join(dir, 'no-specs', 'responseHeaders.json'), '{}');
  writeFileSync(join(dir, 'no-specs', 'README.md'), 'not a spec');
  mkdirSync(join(dir, 'specs'));
  writeFileSync(join(dir, 'specs', 'one.json'), JSON.stringify({ url: '/api/v1/contracts/1', responseStatus: 404, responseJson: {} }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('an empty folder: exit 2, and stderr names it', () => {
  const empty = join(dir, 'empty');
  const r = runner(empty);
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /no spec files/);
  assert.ok(r.stderr.includes(empty), r.stderr);
  assert.doesNotMatch(r.stdout, /passed/);
});

test('a folder holding no spec file (only responseHeaders.json and other files) is refused too', () => {
  const r = runner(join(dir, 'no-specs'));
  assert.equal(r.status, 2);
  assert.ok(r.stderr.includes(join(dir, 'no-specs')), r.stderr);
});

test('a path that does not exist: exit 2, and stderr names it', () => {
  const missing = join(dir, 'missing');
  const r = runner(missing);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no such spec file or folder/);
  assert.ok(r.stderr.includes(missing), r.stderr);
});

test('one bad path among good ones stops the run before anything is replayed; every bad path is named', () => {
  const r = runner(join(dir, 'specs'), join(dir, 'empty'), join(dir, 'missing'));
  assert.equal(r.status, 2);
  assert.ok(r.stderr.includes(join(dir, 'empty')) && r.stderr.includes(join(dir, 'missing')), r.stderr);
  assert.equal(r.stdout, '');
});
