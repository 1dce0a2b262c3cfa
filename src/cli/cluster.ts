import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/**
 * Runs `count` worker processes of this same command (node:cluster: they share the listening socket
 * and nothing else, each with its own database pool). A worker that dies after it was serving is
 * replaced, at most one start per second; a worker that dies before it ever listened means the
 * command cannot start (its own message says why), so the others are stopped and the primary exits
 * with the worker's code. SIGINT/SIGTERM are passed on to the workers; the primary exits when they
 * all have.
 */
export function runPrimary(count: number, logger: Logger): void {
  let stopping = false;
  let lastFork = 0;
  const listened = new WeakSet<Worker>();
  const fork = () => {
    lastFork = Date.now();
    cluster.fork();
  };
  const stop = (signal: NodeJS.Signals, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = exitCode;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(exitCode);
    for (const worker of workers) worker?.process.kill(signal);
  };
  cluster.on('listening', (worker) => listened.add(worker));
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    if (!listened.has(worker)) {
      stop('SIGTERM', typeof code === 'number' && code > 0 ? code : 1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited; starting a new one');
    setTimeout(fork, Math.max(0, 1000 - (Date.now() - lastFork)));
  });
  process.on('SIGINT', () => stop('SIGINT', 0));
  process.on('SIGTERM', () => stop('SIGTERM', 0));
  for (let i = 0; i < count; i++) fork();
}

export const isPrimary = (): boolean => cluster.isPrimary;
/** 1 in a single process and in the first worker: the one that prints the banner. */
export const workerNumber = (): number => (cluster.isPrimary ? 1 : (cluster.worker?.id ?? 1));
