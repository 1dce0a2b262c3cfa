/**
 * A Redis server of the test's own: `redis-server` started on a free loopback port, without
 * persistence, so tests can stop, pause and restart it (Redis going away mid-run) without touching
 * anyone's data. Undefined when no redis-server binary is installed: those tests then skip.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bench/lib/cli.ts';

export interface TestRedis {
  url: string;
  /** Ends the server (SIGKILL: as if the host went away). */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that accepts connections and never answers. */
  pause(): void;
  resume(): void;
  /** Every key in the server's database 0. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

export const hasRedisServer = (): boolean => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

async function cli(port: number, ...args: string[]): Promise<string> {
  const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 });
  if (result.status !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${result.stderr || result.error?.message}`);
  return result.stdout;
}

export async function startTestRedis(): Promise<TestRedis | undefined> {
  if (!hasRedisServer()) return undefined;
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      try {
        if ((await cli(port, 'ping')).trim() === 'PONG') return;
      } catch {
        /* not yet */
      }
      await sleep(50);
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    running.kill('SIGCONT');
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    keys: async () => (await cli(port, '--scan')).split('\n').filter(Boolean),
    close: kill,
  };
}
