import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { createPostgresDb, postgresOptionsFromConfig } from '../../src/db/postgres.ts';
import { createScratchDatabase } from '../support/database.ts';

const url = process.env.TEST_DATABASE_URL;

test('serving sessions are read-only, and statements are cut at the statement timeout', { skip: url ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const scratch = await createScratchDatabase(url!);
  const config = loadConfig({ DATABASE_URL: scratch.url }, '/nonexistent');
  const db = createPostgresDb(config, { ...postgresOptionsFromConfig(config), readOnly: true, statementTimeoutMs: 300 });
  try {
    const [row] = await db.query<{ default_transaction_read_only: string }>('show default_transaction_read_only');
    assert.equal(row!.default_transaction_read_only, 'on');
    await assert.rejects(db.exec('create table written (x int)'), /read-only transaction/);
    await assert.rejects(db.query('select pg_sleep(5)'), /statement timeout|Query read timeout/);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

