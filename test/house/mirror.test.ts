/**
 * test/ mirrors src/, both ways: the tests of src/<path>/<module>.ts are in test/<path>/, so every
 * folder of src/ with code has its folder in test/, and every folder of test/ is a folder of src/
 * or inside one of the suites that check across modules, each of which docs/testing.md explains
 * ("Where the tests are").
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The top-level folders of test/ that are not a folder of src/: suites across modules, and helpers. */
export const SUITES = ['bench', 'citus', 'conformance', 'deploy', 'fixtures', 'house', 'support', 'v2'];

function folders(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [relative(ROOT, path), ...folders(path)] : [];
  });
}

/** The test files in `dir` and below. */
function testsIn(dir: string): number {
  return readdirSync(dir).reduce((n, name) => {
    const path = join(dir, name);
    return n + (statSync(path).isDirectory() ? testsIn(path) : name.endsWith('.test.ts') ? 1 : 0);
  }, 0);
}

test('house: every folder of test/ is a folder of src/ or in a suite of docs/testing.md', () => {
  const stray = folders(join(ROOT, 'test')).filter((folder) => {
    const [, top] = folder.split('/');
    return !SUITES.includes(top!) && !existsSync(join(ROOT, 'src', folder.slice('test/'.length)));
  });
  assert.deepEqual(stray, []);
});

test('house: every folder of src/ with code has its folder of test/, with a test in it or below', () => {
  const untested = folders(join(ROOT, 'src')).filter((folder) => {
    const code = readdirSync(join(ROOT, folder)).some((name) => name.endsWith('.ts'));
    const mirror = join(ROOT, 'test', folder.slice('src/'.length));
    return code && !(existsSync(mirror) && testsIn(mirror) > 0);
  });
  assert.deepEqual(untested, []);
});

test('house: every suite folder of test/ is there and named in docs/testing.md', () => {
  const guide = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
  for (const suite of SUITES) {
    assert.ok(existsSync(join(ROOT, 'test', suite)), `test/${suite} is gone: take it off SUITES`);
    assert.match(guide, new RegExp(`\`test/${suite}\``), `docs/testing.md does not explain test/${suite}`);
  }
});
