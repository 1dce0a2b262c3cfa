/**
 * Where a first start on the embedded database spends its time, on the host and in the image
 * (issue 47, item 5): each round starts, one after another, `node dist/cli.js serve` on the host in
 * a new data directory, the image with a new volume creating its database (DATA_TEMPLATE emptied),
 * and the image with a new volume copying its packed demo database; each is timed to its first
 * answer, and its phases are read from its first-start lines (creating or copying the database,
 * migrating, the demo network). Not part of CI: run it after `npm run image`.
 *
 *   npx tsx image/test/firstStart.ts [--rounds N] [--node PATH]    (PATH: the host's Node.js binary)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { waitReady } from './checks.ts';
import { IMAGE, RUN_FLAGS, containerState, freePort, podman, removeContainer } from './podman.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, node: { type: 'string', default: process.execPath } } });
const ROOT = join(import.meta.dirname, '..', '..');
const TIMEOUT_MS = 300_000;

/** The phases a first start's lines name, in seconds. */
function phases(log: string): string {
  const created = /Created the embedded database in ([\d.]+) s/.exec(log)?.[1];
  const copied = /Copied \d+ MB in ([\d.]+) s/.exec(log)?.[1];
  const migrated = /"ms":(\d+),"msg":"database migrated"/.exec(log)?.[1];
  const demo = /demo network created in ([\d.]+) s/.exec(log)?.[1];
  return [
    created && `create ${created} s`,
    copied && `copy ${copied} s`,
    migrated && `migrate ${(Number(migrated) / 1000).toFixed(1)} s`,
    demo && `demo network ${demo} s`,
  ].filter(Boolean).join(', ');
}

async function onHost(): Promise<[number, string]> {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-first-start-'));
  const port = await freePort();
  let log = '';
  const since = performance.now();
  const child: ChildProcess = spawn(values.node!, [join(ROOT, 'dist', 'cli.js'), 'serve', '--data-dir', join(dir, 'data'), '--port', String(port), '--host', '127.0.0.1'], {
    env: { ...process.env, DATA_TEMPLATE: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk));
  try {
    const ms = await waitReady(`http://127.0.0.1:${port}`, since, TIMEOUT_MS, () => child.exitCode === null);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    return [ms, phases(log)];
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function inContainer(template: boolean): Promise<[number, string]> {
  const name = `cqs-first-start-${process.pid}`;
  removeContainer(name, name);
  const port = await freePort();
  const since = performance.now();
  podman(['run', '-d', '--name', name, ...RUN_FLAGS, '-p', `127.0.0.1:${port}:5551`, '-v', `${name}:/data`, ...(template ? [] : ['-e', 'DATA_TEMPLATE=']), IMAGE]);
  try {
    const ms = await waitReady(`http://127.0.0.1:${port}`, since, TIMEOUT_MS, () => containerState(name).Running);
    podman(['stop', '-t', '30', name]);
    const logs = podman(['logs', name]);
    return [ms, phases(logs.stdout + logs.stderr)];
  } finally {
    removeContainer(name, name);
  }
}

const nodeVersion = (await import('node:child_process')).execFileSync(values.node!, ['--version'], { encoding: 'utf8' }).trim();
const runs: Array<[string, () => Promise<[number, string]>]> = [
  [`host (Node.js ${nodeVersion}), created`, onHost],
  ['container, created', () => inContainer(false)],
  ['container, copied from the image', () => inContainer(true)],
];
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const [what, run] of runs) {
    const [ms, detail] = await run();
    process.stdout.write(`round ${round}  ${what.padEnd(36)} first answer ${(ms / 1000).toFixed(1).padStart(5)} s  (${detail})\n`);
  }
}
