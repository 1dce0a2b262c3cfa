import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { createScratchDatabase, v2Template } from '../support/database.ts';
import { ROOT, runCli, startCli } from './run.ts';

/** Start-up problems end with exit code 1 and one `error:` line saying what to check. */

const oneLine = (stderr: string) => {
  const lines = stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'));
  assert.equal(lines.length, 1, `one line expected:\n${stderr}`);
  assert.match(lines[0]!, /^error: /);
  return lines[0]!;
};

test('an unwritable data directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-cli-'));
  try {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const { code, stderr } = await runCli(['serve', '--port', '0', '--data-dir', join(file, 'data')]);
    assert.equal(code, 1);
    assert.match(oneLine(stderr), /the data directory .*a-file\/data is not writable \(a file is in the way\); choose another with --data-dir, or use --memory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a data directory holding other files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-cli-'));
  try {
    writeFileSync(join(dir, 'notes.txt'), 'x');
    const { code, stderr } = await runCli(['serve', '--port', '0', '--data-dir', dir]);
    assert.equal(code, 1);
    assert.match(oneLine(stderr), /is not empty and holds no database; choose an empty or new directory with --data-dir/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a port in use fails before any database work', async () => {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as { port: number };
  const dir = mkdtempSync(join(tmpdir(), 'cqs-cli-'));
  try {
    const started = performance.now();
    const { code, stderr } = await runCli(['serve', '--port', String(port), '--data-dir', join(dir, 'data')]);
    assert.equal(code, 1);
    assert.equal(oneLine(stderr), `error: port ${port} is already in use; set another with --port or HIERO_MIRROR_REST_PORT`);
    assert.ok(performance.now() - started < 10_000);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unreachable database host or port, without echoing the password', async () => {
  const refused = await runCli(['seed', '--database-url', 'postgres://someone:s3cret@127.0.0.1:1/demo']);
  assert.equal(refused.code, 1);
  assert.equal(
    oneLine(refused.stderr),
    'error: cannot connect to PostgreSQL at 127.0.0.1:1 (connection refused): check that the server is running and the host and port of the database URL',
  );
  const unknown = await runCli(['migrate', '--database-url', 'postgres://someone:s3cret@no-such-host.invalid:5432/demo']);
  assert.equal(unknown.code, 1);
  assert.match(oneLine(unknown.stderr), /^error: (unknown database host "no-such-host\.invalid": check the host name|no answer from PostgreSQL at no-such-host\.invalid:5432)/);
  assert.doesNotMatch(refused.stderr + unknown.stderr, /s3cret/);
});

test('bad arguments', async () => {
  const scale = await runCli(['seed', '--scale', 'lots']);
  assert.equal(scale.code, 2);
  assert.match(oneLine(scale.stderr), /--scale must be a number above 0 and at most 1000/);
  const option = await runCli(['serve', '--prot', '1']);
  assert.equal(option.code, 2);
  assert.match(oneLine(option.stderr), /Unknown option '--prot'/);
});

const url = process.env.TEST_DATABASE_URL;
const skip = url ? false : 'needs TEST_DATABASE_URL';

/** A scratch database next to TEST_DATABASE_URL's, dropped afterwards. */
async function scratch(fn: (scratchUrl: string) => Promise<void>, template?: string) {
  const database = await createScratchDatabase(url!, 'cqs_cli', template);
  try {
    await fn(database.url);
  } finally {
    await database.drop();
  }
}

test('a missing database and an unknown user', { skip }, async () => {
  const missing = new URL(url!);
  missing.pathname = '/cqs_no_such_database';
  const m = await runCli(['seed', '--database-url', missing.toString()]);
  assert.equal(m.code, 1);
  assert.match(oneLine(m.stderr), /^error: database "cqs_no_such_database" does not exist on .*: create it \(createdb cqs_no_such_database\) or fix the database name in the database URL$/);
  const user = new URL(url!);
  user.username = 'cqs_no_such_user';
  user.password = 'x';
  const u = await runCli(['seed', '--database-url', user.toString()]);
  assert.equal(u.code, 1);
  assert.match(oneLine(u.stderr), /^error: PostgreSQL at .* (rejected the password of|refused) user "cqs_no_such_user"/);
});

test('seed creates the schema in an empty database, replaces its own data, refuses anyone else\'s unless --force', { skip, timeout: 180_000 }, async () => {
  await scratch(async (target) => {
    const first = await runCli(['seed', '--scale', '0.2', '--database-url', target]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /Created the mirror node schema/);
    assert.match(first.stdout, /Seeded the demo network \(scale 0\.2, 5 days\)/);
    assert.match(first.stdout, /contract_result\s+[\d,]+\n/);
    assert.match(first.stdout, /in \d+\.\d s/);
    const again = await runCli(['seed', '--scale', '0.2', '--database-url', target]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /Replacing the demo network \(scale 0\.2\)/);
  });
  await scratch(async (target) => {
    // a database filled by someone else (here: one row written by hand into our schema)
    const migrated = await runCli(['migrate', '--database-url', target]);
    assert.equal(migrated.code, 0, migrated.stderr);
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    await client.query(`insert into contract_result (function_parameters, gas_limit, consensus_timestamp, contract_id, payer_account_id, transaction_result)
                        values ('\\x', 1, 1, 1, 1, 22)`);
    const refused = await runCli(['seed', '--scale', '0.2', '--database-url', target]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refusing to write into .*: it holds data that seed did not create \(rows in contract_result\)/);
    assert.match(refused.stderr, /owned by its importer/);
    assert.match(refused.stderr, /--force/);
    const [{ n }] = (await client.query(`select count(*)::int as n from contract_result`)).rows;
    assert.equal(n, 1, 'nothing was written');
    const forced = await runCli(['seed', '--scale', '0.2', '--force', '--database-url', target]);
    assert.equal(forced.code, 0, forced.stderr);
    const [{ one }] = (await client.query(`select count(*)::int as one from contract_result where consensus_timestamp = 1`)).rows;
    assert.equal(one, 0, 'the foreign row was replaced');
    await client.end();
  });
});

test('seed --force fills an importer\'s empty v2 (Citus) layout, whose keys differ from v1\'s', { skip, timeout: 180_000 }, async () => {
  await scratch(async (target) => {
    const refused = await runCli(['seed', '--scale', '0.2', '--database-url', target]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /it holds data that seed did not create \(the mirror node schema of another tool, such as its importer, with empty tables\)/);
    const forced = await runCli(['seed', '--scale', '0.2', '--force', '--database-url', target]);
    assert.equal(forced.code, 0, forced.stderr);
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      const [row] = (await client.query('select count(*)::int as blocks, count(distinct consensus_end)::int as ends from record_file')).rows;
      assert.ok(row.blocks > 0);
      assert.equal(row.blocks, row.ends, 'one record file per block');
    } finally {
      await client.end();
    }
  }, await v2Template(url!));
});

test('migrate leaves an importer\'s schema alone, and adds the recommended indexes only when asked', { skip, timeout: 120_000 }, async () => {
  await scratch(async (target) => {
    // a schema made by someone else: the mirror node tables without this service's migration table
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      await client.query(readFileSync(join(ROOT, 'src/db/migrations/0001_mirror_node_v1_schema.sql'), 'utf8'));
      const indexExists = async () =>
        (await client.query(`select to_regclass('public.contract_result__id_timestamp_top_level') is not null as present`)).rows[0].present;
      const plain = await runCli(['migrate', '--database-url', target]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(plain.stdout, /made by its importer; nothing was changed/);
      assert.equal(await indexExists(), false);
      const asked = await runCli(['migrate', '--recommended-indexes', '--database-url', target]);
      assert.equal(asked.code, 0, asked.stderr);
      assert.match(asked.stdout, /create index concurrently if not exists contract_result__id_timestamp_top_level/);
      assert.equal(await indexExists(), true);
      assert.equal((await client.query(`select to_regclass('public.cqs_schema_migration') is null as absent`)).rows[0].absent, true);
    } finally {
      await client.end();
    }
  });
});

test('a data directory that cannot be created (under /proc) fails at once instead of spinning', { skip: process.platform === 'linux' ? false : 'Linux /proc' }, async () => {
  const cli = startCli(['serve', '--port', '0', '--data-dir', '/proc/cqs-test/data']);
  const code = await Promise.race([cli.exited, new Promise((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000).unref())]);
  if (cli.child.exitCode === null) cli.child.kill('SIGKILL'); // it would not answer SIGTERM
  assert.equal(code, 1);
  assert.equal(oneLine(cli.stderr()), 'error: the data directory /proc/cqs-test/data cannot be created there; choose another with --data-dir, or use --memory');
});
