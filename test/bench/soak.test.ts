/**
 * The soak scenario (bench/scenarios/soak.ts) as CI runs it: a short soak of the built server on the embedded
 * demo network must end PASS with 0 errors; and the script must FAIL when a server answers 5xx,
 * so that the short soak can catch errors at all.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../cli/run.ts';

const dir = mkdtempSync(join(tmpdir(), 'cqs-soak-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function soak(args: string[]): Promise<Run> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/main.ts', 'soak', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

test('a short soak of the built server on the embedded demo network: 0 errors, PASS', { timeout: 240_000 }, async () => {
  const run = await soak(['--minutes', '0.25', '--connections', '4', '--window', '5', '--sample', '1', '--max-rss-growth', '128']);
  const report = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, 0, report);
  assert.match(run.stdout, /5xx \+ errors \+ timeouts: 0 \(allowed 0\)/, report);
  assert.match(run.stdout, /\nPASS\n/, report);
  const requests = Number(/\n(\d+) requests, /.exec(run.stdout)?.[1]);
  assert.ok(requests > 100, report);
  assert.match(run.stderr, /server: exit code 0/, report);
});

test('the soak fails when the server answers 5xx', { timeout: 60_000 }, async () => {
  let served = 0;
  const server: Server = createServer((req, res) => {
    served++;
    res.writeHead(req.url === '/broken' ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const urls = join(dir, 'urls.txt');
    writeFileSync(urls, '/fine\n/broken\n');
    const run = await soak(['--minutes', '0.1', '--connections', '2', '--window', '3', '--sample', '1',
      '--url-file', urls, '--pid', String(process.pid), '--base', `http://127.0.0.1:${port}`]);
    const report = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.code, 1, report);
    assert.match(run.stdout, /FAIL: errors/, report);
    assert.ok(served > 10, report);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
