/**
 * podman as the image test calls it: with deploy/podman/containers.conf (runc, ulimits this machine
 * allows), and without podman's health-check timers, which need systemd (the test runs the image's
 * HEALTHCHECK itself with `podman healthcheck run`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const env = { ...process.env, CONTAINERS_CONF: join(root, 'deploy', 'podman', 'containers.conf') };

export const VERSION: string = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
export const IMAGE = `${process.env.IMAGE_NAME ?? 'contract-query-service'}:${VERSION}`;

export interface Result {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs podman with `args`; throws with its stderr unless it exits 0 (or `allowFail`). */
export function podman(args: string[], options: { allowFail?: boolean; timeoutMs?: number } = {}): Result {
  const run = spawnSync('podman', args, { env, encoding: 'utf8', timeout: options.timeoutMs ?? 120_000 });
  const result = { status: run.status ?? -1, stdout: run.stdout ?? '', stderr: run.stderr ?? '' };
  if (result.status !== 0 && !options.allowFail) throw new Error(`podman ${args.join(' ')} exited ${result.status}: ${result.stderr.trim()}`);
  return result;
}

/** The flags of every `podman run` here: a read-only root with not even a /tmp, health checks run by hand. */
export const RUN_FLAGS = ['--read-only', '--read-only-tmpfs=false', '--health-interval=disable'];

export function inspectImage(image = IMAGE): ImageInspect {
  return (JSON.parse(podman(['image', 'inspect', image]).stdout) as ImageInspect[])[0]!;
}

export interface ImageInspect {
  Size: number;
  Config: {
    User?: string;
    ExposedPorts?: Record<string, unknown>;
    Env?: string[];
    Entrypoint?: string[];
    Volumes?: Record<string, unknown>;
    WorkingDir?: string;
    Labels?: Record<string, string>;
    StopSignal?: string;
  };
  Healthcheck?: { Test?: string[] };
}

export function containerState(name: string): { Status: string; ExitCode: number; Running: boolean } {
  return JSON.parse(podman(['inspect', name, '--format', '{{json .State}}']).stdout) as { Status: string; ExitCode: number; Running: boolean };
}

/** Removes the container with its anonymous volumes (and with `volume`, that named one) if they exist. */
export function removeContainer(name: string, volume?: string): void {
  podman(['rm', '-f', '-v', '-t', '0', name], { allowFail: true });
  if (volume) podman(['volume', 'rm', '-f', volume], { allowFail: true });
}

/** A free TCP port on the loopback address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
