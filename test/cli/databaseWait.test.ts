import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { type Cli, freePort, runCli, startCli } from './run.ts';

/**
 * An external database that is down, missing or empty at start does not stop `serve`: it listens,
 * answers 503 (readiness and requests) and checks the database again with backoff, logging one
 * line per change of state, until the database is there with its schema.
 */

const url = process.env.TEST_DATABASE_URL;

/** The `msg` of the JSON log lines on stdout. */
const messages = (cli: Cli): string[] =>
  cli
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

const databaseLines = (cli: Cli) => messages(cli).filter((msg) => msg.startsWith('database '));

async function probe(port: number, path: string) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
}

test('a database that refuses connections: one line, readiness and requests 503, no stack traces', { timeout: 60_000 }, async () => {
  const dbPort = await freePort();
  const port = await freePort();
  const server = startCli(['serve', '--port', String(port)], { DATABASE_URL: `postgres://someone:s3cret@127.0.0.1:${dbPort}/mirror_node`, LOG_LEVEL: 'info' });
  try {
    await server.waitFor('stop with Ctrl-C', 30_000);
    assert.match(server.stdout(), /database: PostgreSQL postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/mirror_node \(not ready: requests answer 503 until it is; see the log\)/);
    assert.deepEqual(await probe(port, '/health/readiness'), { status: 503, body: '{"status":"error"}', retryAfter: null });
    assert.deepEqual(await probe(port, '/health/liveness'), { status: 200, body: '{"status":"ok"}', retryAfter: null });
    const request = await probe(port, '/api/v1/contracts/0.0.1001/results');
    assert.deepEqual(request, { status: 503, body: '{"_status":{"messages":[{"message":"Service unavailable"}]}}', retryAfter: '1' });
    // checks at 0, 0.5, 1.5, 3.5 s: several retries, still one line
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert.deepEqual(databaseLines(server), [
      `database unreachable: cannot connect to PostgreSQL at 127.0.0.1:${dbPort} (connection refused): check that the server is running and the host and port of the database URL; retrying`,
    ]);
    assert.doesNotMatch(server.stdout() + server.stderr(), /"stack"|\n\s+at |s3cret/);
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0);
  }
});

test('a database created and migrated after the start: each state once, then ready', { skip: url ? false : 'needs TEST_DATABASE_URL', timeout: 120_000 }, async () => {
  const name = `cqs_wait_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const target = new URL(url!);
  target.pathname = `/${name}`;
  const port = await freePort();
  const server = startCli(['serve', '--port', String(port)], { DATABASE_URL: target.toString(), LOG_LEVEL: 'info' });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await server.waitFor('stop with Ctrl-C', 30_000);
    assert.deepEqual(databaseLines(server), [
      `database unreachable: database "${name}" does not exist on ${target.hostname}:${target.port || 5432}: create it (createdb ${name}) or fix the database name in the database URL; retrying`,
    ]);
    assert.equal((await probe(port, '/health/readiness')).status, 503);

    await admin.query(`create database ${name}`);
    await server.waitFor('schema missing', 30_000);
    assert.equal(databaseLines(server).length, 2);
    assert.match(databaseLines(server)[1]!, /^database reachable, schema missing: tables contract, contract_action, .*, transaction_hash; retrying$/);
    assert.equal((await probe(port, '/health/readiness')).status, 503);
    const early = await probe(port, '/api/v1/contracts/0.0.1001');
    assert.equal(early.status, 503);
    assert.equal(early.retryAfter, '1');

    const migrated = await runCli(['migrate', '--database-url', target.toString()]);
    assert.equal(migrated.code, 0, migrated.stderr);
    await server.waitFor('database reachable, schema present', 40_000);
    assert.equal((await probe(port, '/health/readiness')).status, 200);
    assert.deepEqual(await probe(port, '/api/v1/contracts/0.0.1001'), {
      status: 404,
      body: '{"_status":{"messages":[{"message":"Not found"}]}}',
      retryAfter: null,
    });
    assert.equal(databaseLines(server).length, 3, databaseLines(server).join('\n'));
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0);
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});
