import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A port nobody listens on right now (the bench scripts' own). */
export { freePort } from '../../bench/lib/cli.ts';

export interface Cli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stdout or stderr contains `text` (rejects on exit or timeout). */
  waitFor(text: string | RegExp, timeoutMs: number): Promise<number>;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Starts the CLI from its sources: `node --import tsx src/cli.ts <args>` in the project folder. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Cli {
  return spawnCommand(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], env);
}

/** Starts the service exactly as the README says: `npm start -- <args>` in the project folder. */
export function npmStart(args: string[], env: NodeJS.ProcessEnv = {}): Cli {
  return spawnCommand('npm', ['start', '--', ...args], env);
}

function spawnCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Cli {
  const started = performance.now();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
  delete childEnv.DATABASE_URL;
  if (env.DATABASE_URL) childEnv.DATABASE_URL = env.DATABASE_URL;
  const child = spawn(command, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    for (const l of listeners) l();
  });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(text, timeoutMs) {
      return new Promise((resolve, reject) => {
        const found = () => (typeof text === 'string' ? (out + err).includes(text) : text.test(out + err));
        const done = () => {
          listeners.delete(check);
          clearTimeout(timer);
        };
        const check = () => {
          if (found()) {
            done();
            resolve(performance.now() - started);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${text}\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then((code) => {
          if (listeners.has(check) && !found()) {
            done();
            reject(new Error(`exited (${code}) before printing ${text}\nstdout:\n${out}\nstderr:\n${err}`));
          }
        });
        check();
      });
    },
    exited,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to its end. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = startCli(args, env);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
