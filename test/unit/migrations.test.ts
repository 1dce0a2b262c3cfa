import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { listMigrations, recommendedIndexStatements } from '../../src/db/migrate.ts';

test('migrations are numbered, ordered and start with the mirror node schema', () => {
  const migrations = listMigrations();
  assert.deepEqual(migrations.map((m) => m.version), [...migrations.map((m) => m.version)].sort());
  assert.equal(migrations[0]!.version, '0001');
});

test('every recommended index is created by a migration (databases the service owns get them all)', () => {
  const migrated = listMigrations().map((m) => readFileSync(m.file, 'utf8')).join('\n');
  const statements = recommendedIndexStatements();
  assert.ok(statements.length > 0);
  for (const statement of statements) assert.ok(migrated.includes(statement), statement);
});
