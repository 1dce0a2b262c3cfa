/**
 * Runs the conformance suite (test/conformance/run.ts over every spec file of ../shared/conformance)
 * in a child process with extra environment, and reads its summary line.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPECS = [join(ROOT, '..', 'shared', 'conformance', 'specs'), join(ROOT, '..', 'shared', 'conformance', 'specs-extra')];

export interface ConformanceRun {
  code: number | null;
  /** The last 4,000 characters of its output, for assertion messages. */
  tail: string;
  /** From the summary line "N passed, M failed"; undefined without one. */
  passed: number | undefined;
  failed: number | undefined;
}

/** The suite on the embedded database (TEST_DATABASE_URL emptied), with `env` added. */
export async function runConformance(env: Record<string, string>): Promise<ConformanceRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/conformance/run.ts', ...SPECS], {
    cwd: ROOT,
    env: { ...process.env, TEST_DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const summary = /^(\d+) passed, (\d+) failed$/m.exec(output);
  return { code, tail: output.slice(-4000), passed: summary ? Number(summary[1]) : undefined, failed: summary ? Number(summary[2]) : undefined };
}
