import assert from 'node:assert/strict';
import { test } from 'node:test';
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
