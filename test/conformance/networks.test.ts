/**
 * The conformance suite on one network of a two-network server (issue 28): every spec's data is the
 * testnet network's, requested with a testnet Host, while the default network (previewnet) holds a
 * demo network: an answer computed on the wrong database, or taken from its cache, would differ.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPECS = [join(ROOT, '..', 'shared', 'conformance', 'specs'), join(ROOT, '..', 'shared', 'conformance', 'specs-extra')];

test('every spec answers byte for byte on the testnet network of a two-network server', { timeout: 600_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/conformance/run.ts', ...SPECS], {
    cwd: ROOT,
    env: { ...process.env, TEST_DATABASE_URL: '', CONFORMANCE_NETWORKS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, output.slice(-4000));
  const summary = /^(\d+) passed, (\d+) failed$/m.exec(output);
  assert.ok(summary && Number(summary[1]) > 600 && summary[2] === '0', output.slice(-4000));
});
