/**
 * src/cli/template.ts: a data directory packed and unpacked comes back the same (files, empty
 * folders, modes), never over an unpack's leftovers, PG_VERSION last; a damaged file is refused.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { packDirectory, unpackDirectory } from '../../src/cli/template.ts';

function tree(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel)).sort().flatMap((name) => {
    const path = rel ? `${rel}/${name}` : name;
    const stat = statSync(join(dir, path));
    const mode = (stat.mode & 0o777).toString(8);
    return stat.isDirectory() ? [`${path}/ ${mode}`, ...tree(dir, path)] : [`${path} ${mode} ${readFileSync(join(dir, path)).toString('base64')}`];
  });
}

test('template: packed and unpacked, a data directory comes back the same, without what was skipped', (t) => {
  const work = mkdtempSync(join(tmpdir(), 'cqs-template-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const source = join(work, 'source');
  mkdirSync(join(source, 'base', '5'), { recursive: true, mode: 0o700 });
  mkdirSync(join(source, 'pg_tblspc'), { mode: 0o700 });
  writeFileSync(join(source, 'PG_VERSION'), '17\n', { mode: 0o600 });
  writeFileSync(join(source, 'base', '5', '1259'), Buffer.alloc(300_000, 7), { mode: 0o600 });
  writeFileSync(join(source, 'base', '5', 'empty'), '', { mode: 0o644 });
  writeFileSync(join(source, 'cqs.pid'), '123\n');
  const file = join(work, 'packed');
  const packed = packDirectory(source, file, (rel) => rel === 'cqs.pid');
  assert.equal(packed.files, 3);
  assert.equal(packed.bytes, 300_003);
  assert.ok(packed.packedBytes < 2_000, `${packed.packedBytes} bytes packed`);

  const target = join(work, 'target');
  mkdirSync(target);
  writeFileSync(join(target, 'cqs.pid'), `${process.pid}\n`);
  // an earlier unpack that was interrupted
  mkdirSync(join(target, '.template-unpacking', 'base'), { recursive: true });
  assert.equal(unpackDirectory(file, target), 300_003);
  rmSync(join(source, 'cqs.pid'));
  rmSync(join(target, 'cqs.pid'));
  assert.deepEqual(tree(target), tree(source));
});

test('template: a file that is not one, or a damaged one, is refused and writes no database', (t) => {
  const work = mkdtempSync(join(tmpdir(), 'cqs-template-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const source = join(work, 'source');
  mkdirSync(source);
  writeFileSync(join(source, 'PG_VERSION'), '17\n');
  writeFileSync(join(source, 'data'), Buffer.alloc(10_000, 1));
  const file = join(work, 'packed');
  packDirectory(source, file);

  writeFileSync(join(work, 'other'), 'PG_VERSION\n');
  assert.throws(() => unpackDirectory(join(work, 'other'), join(work, 'a')), /is not a packed data directory/);
  const bytes = readFileSync(file);
  writeFileSync(join(work, 'cut'), bytes.subarray(0, bytes.length - 5));
  assert.throws(() => unpackDirectory(join(work, 'cut'), join(work, 'b')));
  assert.equal(existsSync(join(work, 'b', 'PG_VERSION')), false);
});
