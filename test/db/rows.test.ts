import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { type Db, rowMaker, rowsOf } from '../../src/db/db.ts';
import { createEmbeddedDb } from '../../src/db/embedded.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { sql } from '../../src/db/sql.ts';

// Rows arrive as arrays and are made into objects by a maker per statement (src/db/db.ts, rowsOf):
// the same objects node-postgres makes, whatever the column names.

const url = process.env.TEST_DATABASE_URL;
const backends: { name: string; open: () => Promise<{ db: Db; close: () => Promise<void> }>; skip: string | false }[] = [
  {
    name: 'embedded',
    open: async () => {
      const { db } = await createEmbeddedDb();
      return { db, close: () => db.close() };
    },
    skip: false,
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const db = createPostgresDb(loadConfig({ DATABASE_URL: url! }, '/nonexistent'));
      return { db, close: () => db.close() };
    },
    skip: url ? false : 'needs TEST_DATABASE_URL',
  },
];

const AWKWARD = `select 1::int as "__proto__", 2::int as "constructor", 'a"b' as "quote""d", 'x' as "back\\slash", null::text as "new
line", 9007199254740993::int8 as big, '\\x00ff'::bytea as bytes`;

for (const backend of backends) {
  let opened: { db: Db; close: () => Promise<void> } | undefined;
  before(async () => {
    if (!backend.skip) opened = await backend.open();
  });
  after(async () => opened?.close());

  test(`${backend.name}: rows keep awkward column names as own properties, with parsed values`, { skip: backend.skip }, async () => {
    for (let i = 0; i < 2; i++) {
      const [row] = await opened!.db.query<Record<string, unknown>>(AWKWARD);
      assert.deepEqual(Object.keys(row!), ['__proto__', 'constructor', 'quote"d', 'back\\slash', 'new\nline', 'big', 'bytes']);
      assert.equal(Object.getPrototypeOf(row), Object.prototype);
      assert.ok(Object.hasOwn(row!, '__proto__'));
      assert.equal(row!['__proto__'], 1);
      assert.equal(row!['constructor'], 2);
      assert.equal(row!['quote"d'], 'a"b');
      assert.equal(row!['new\nline'], null);
      assert.equal(typeof row!['big'], typeof (await opened!.db.query<{ v: unknown }>('select 1::int8 as v'))[0]!.v);
      assert.equal(String(row!['big']), '9007199254740993');
      assert.equal(row!['bytes'], '00ff'); // bytea as hex without its \x (types.ts)
    }
  });

  test(`${backend.name}: a later column of the same name wins, in the first one's place`, { skip: backend.skip }, async () => {
    const rows = await opened!.db.query<Record<string, unknown>>(sql`select ${1}::int as a, ${2}::int as b, ${3}::int as a`);
    assert.deepEqual(rows, [{ a: 3, b: 2 }]);
    assert.deepEqual(Object.keys(rows[0]!), ['a', 'b']);
  });

  test(`${backend.name}: many rows, none, and a statement with parameters`, { skip: backend.skip }, async () => {
    const rows = await opened!.db.query<{ n: number; half: string | null }>(
      sql`select n, case when n % 2 = 0 then (n / 2)::text end as half from generate_series(1, ${300}::int) n`,
    );
    assert.equal(rows.length, 300);
    assert.deepEqual(rows[0], { n: 1, half: null });
    assert.deepEqual(rows[299], { n: 300, half: '150' });
    assert.deepEqual(await opened!.db.query(sql`select n from generate_series(1, ${0}::int) n`), []);
  });
}

const fields = (...names: string[]) => names.map((name) => ({ name }) as pg.FieldDef);

test('a statement whose columns differ (the same text on another database) gets a new maker', () => {
  const first = rowsOf('cqs_test_same_name', { rows: [[1, 2]], fields: fields('a', 'b') } as pg.QueryArrayResult);
  assert.deepEqual(first, [{ a: 1, b: 2 }]);
  const second = rowsOf('cqs_test_same_name', { rows: [[1, 2, 3]], fields: fields('a', 'c', 'd') } as pg.QueryArrayResult);
  assert.deepEqual(second, [{ a: 1, c: 2, d: 3 }]);
  const renamed = rowsOf('cqs_test_same_name', { rows: [[4, 5, 6]], fields: fields('a', 'c', 'e') } as pg.QueryArrayResult);
  assert.deepEqual(renamed, [{ a: 4, c: 5, e: 6 }]);
});

test('a row maker quotes its column names: no name is read as code', () => {
  const names = ['a}; throw new Error("x"); ({', "'", '`${1}`', '\u2028', '', '0', '__proto__'];
  const row = rowMaker(names)(names.map((_, i) => i));
  assert.deepEqual(Object.keys(row).sort(), [...names].sort());
  for (const [i, name] of names.entries()) assert.equal(row[name], i);
});
