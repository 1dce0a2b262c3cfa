import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { byteaToHex, typeParsers } from '../../src/db/types.ts';

test('bytea arrives as hex digits, from the hex and the escape output formats', () => {
  assert.equal(byteaToHex('\\x'), '');
  assert.equal(byteaToHex('\\x00ff10'), '00ff10');
  // bytea_output = escape: printable bytes as themselves, others as \ooo, a backslash doubled
  assert.equal(byteaToHex('ab\\000\\377\\\\'), '616200ff5c');
  assert.equal(typeParsers.getTypeParser(17, 'text'), byteaToHex);
  // other types keep node-postgres' parsers (int8 stays text, int4 becomes a number)
  assert.equal((typeParsers.getTypeParser(20, 'text') as (s: string) => unknown)('9223372036854775807'), '9223372036854775807');
  assert.equal((typeParsers.getTypeParser(23, 'text') as (s: string) => unknown)('42'), 42);
});

test("int8 arrives as its text, exactly what node-postgres' own parser gives for any value", () => {
  const ours = typeParsers.getTypeParser(20, 'text') as (s: string) => unknown;
  const theirs = pg.types.getTypeParser(20, 'text') as (s: string) => unknown;
  for (const text of ['0', '42', '-42', '9223372036854775807', '-9223372036854775808', '1747353600123456789']) {
    assert.equal(ours(text), text);
    assert.equal(ours(text), theirs(text));
  }
  // binary results keep node-postgres' binary parsers
  assert.equal(typeParsers.getTypeParser(20, 'binary'), pg.types.getTypeParser(20, 'binary'));
});
