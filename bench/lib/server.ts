/** Starts a server command for a benchmark, waits until it answers, and stops it with SIGTERM. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface StartedServer {
  pid: number;
  logFile: string;
  stop(): Promise<string>;
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Runs `command` with `sh -c` in its own process group (so SIGTERM reaches the server even when the
 * shell does not exec it), output to `logFile`, and polls `readyUrl` until it answers with a status
 * below 500 (the service answers 503 while its database is unreachable).
 */
export async function startServer(command: string, readyUrl: string, logFile: string, timeoutMs: number): Promise<StartedServer> {
  const fd = openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn('sh', ['-c', command], { detached: true, stdio: ['ignore', fd, fd], env: process.env });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`cannot start: ${command}`);
  let exitCode: number | null | undefined;
  let exitStatus = 'running';
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code;
      exitStatus = signal ? `ended by ${signal}` : `exit code ${code}`;
      resolve();
    }),
  );

  /** True while any process of the group (the shell and whatever it started) is alive. */
  const groupAlive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      /* already gone */
    }
  };

  /** SIGTERM to the group, SIGKILL after 10 s; resolves with how the shell ended. */
  const stop = async (): Promise<string> => {
    if (exitCode === undefined) signalGroup('SIGTERM');
    const deadline = Date.now() + 10_000;
    while (groupAlive() && Date.now() < deadline) await sleep(50);
    if (groupAlive()) {
      signalGroup('SIGKILL');
      await exited;
      return `${exitStatus} (killed with SIGKILL after 10 s)`;
    }
    await exited;
    return exitStatus;
  };

  const deadline = Date.now() + timeoutMs;
  let lastProblem = '';
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new Error(`the server ended (${exitStatus}) before answering; ${logFile}:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(readyUrl, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return { pid, logFile, stop };
      lastProblem = `HTTP ${res.status}`;
    } catch (err) {
      lastProblem = (err as Error).message;
    }
    await sleep(250);
  }
  await stop();
  throw new Error(`the server did not answer ${readyUrl} within ${timeoutMs / 1000} s (${lastProblem}); ${logFile}:\n${tail(logFile)}`);
}

/** Builds dist/ as `npm run build` does (scripts/build.mjs, output to this terminal); false when it failed. */
export function buildService(): boolean {
  return spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' }).status === 0;
}

/** The service (dist/cli.js) as a bench script runs it on a loopback port. */
export interface LocalService {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** `$TMPDIR/cqs-<script>-server-<pid of this process>.log` */
  logFile: string;
  /** `exec node dist/cli.js serve` on that port, then `serveArgs` */
  command: string;
}

export function localService(script: string, port: number, serveArgs = ''): LocalService {
  return {
    base: `http://127.0.0.1:${port}`,
    logFile: join(tmpdir(), `cqs-${script}-server-${process.pid}.log`),
    command: `exec node dist/cli.js serve --host 127.0.0.1 --port ${port}${serveArgs}`,
  };
}

/** startServer for a LocalService: runs `command` (by default the service's own) and waits until /health/liveness answers. */
export function startLocalService(service: LocalService, timeoutMs = 120_000, command = service.command): Promise<StartedServer> {
  return startServer(command, `${service.base}/health/liveness`, service.logFile, timeoutMs);
}

/** Throws a clear error unless the server at `base` answers HTTP (any status): `--<option>` names where it was looked for. */
export async function requireServer(option: string, base: string | URL): Promise<void> {
  try {
    const res = await fetch(new URL('/health/liveness', base), { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
  } catch (err) {
    throw new Error(`no server answers at --${option} ${String(base)} (${(err as Error).cause ?? (err as Error).message}); start it first`);
  }
}
