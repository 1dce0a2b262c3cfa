import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createScratchDatabase } from '../support/database.ts';
import { freePort, runCli, startCli } from './run.ts';

const url = process.env.TEST_DATABASE_URL;

/**
 * The pids of a process's worker children (empty when it has none or is gone): the processes that
 * run the CLI, not the esbuild service tsx starts when it has a source file to compile.
 */
function children(pid: number): number[] {
  try {
    const pids = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
    return pids.filter((child) => commandLine(child).includes('src/cli.ts'));
  } catch {
    return [];
  }
}

/** A process's command line; "" once it is gone (one child exiting must not hide the others). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

test('--workers runs N processes on one port; SIGTERM stops them all', { skip: url ? false : 'needs TEST_DATABASE_URL', timeout: 120_000 }, async () => {
  const database = await createScratchDatabase(url!, 'cqs_workers');
  try {
    const seeded = await runCli(['seed', '--scale', '0.1', '--database-url', database.url]);
    assert.equal(seeded.code, 0, seeded.stderr);
    const port = await freePort();
    const server = startCli(['serve', '--port', String(port), '--workers', '2'], { DATABASE_URL: database.url });
    let workers: number[] = [];
    try {
      await server.waitFor('stop with Ctrl-C', 60_000);
      assert.match(server.stdout(), /workers: 2 processes/);
      assert.equal(server.stdout().match(/listening on/g)?.length, 1, 'one banner');
      workers = children(server.child.pid!);
      assert.equal(workers.length, 2, 'two worker processes');
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/api/v1/contracts/0.0.2001/results?limit=2`)),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.equal(((await answer.json()) as { results: unknown[] }).results.length, 2);
      }
      assert.equal(await server.stop('SIGTERM'), 0);
      for (const pid of workers) assert.throws(() => process.kill(pid, 0), 'worker stopped');
    } finally {
      // a failed check must not leave the processes running (the test file would never end)
      if (server.child.exitCode === null && server.child.signalCode === null) {
        await server.stop('SIGKILL');
        for (const pid of workers) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone already
          }
        }
      }
    }
  } finally {
    await database.drop();
  }
});

test('--workers needs PostgreSQL', async () => {
  const { code, stderr } = await runCli(['serve', '--memory', '--workers', '2']);
  assert.equal(code, 2);
  assert.match(stderr, /^error: --workers needs PostgreSQL \(DATABASE_URL\): the embedded database lives inside one process\n$/);
  const bad = await runCli(['serve', '--memory', '--workers', 'many']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--workers must be a whole number from 1 to 999, got "many"/);
});
