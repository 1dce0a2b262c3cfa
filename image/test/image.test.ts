/**
 * `npm run image:test`: the built image (npm run image), run with podman on the embedded demo network
 * (a first start, then a restart on its data) and on the machine's PostgreSQL through a read-only
 * user: readiness, an example URL of every route, the metrics, the API documentation, the image's
 * HEALTHCHECK, and SIGTERM with a live stream open (a clean exit within the drain time). Prints the
 * image's size and each start's time to its first answer, against the targets of issue 47 (under
 * 200 MB; under 15 s on existing data or PostgreSQL). Every container runs with a read-only root
 * file system and no /tmp.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { bannerPaths, checkMetricsAndDocs, checkRoutes, openStream, waitReady } from './checks.ts';
import { IMAGE, RUN_FLAGS, VERSION, containerState, freePort, inspectImage, podman, removeContainer } from './podman.ts';
import { type ScratchDatabase, dropScratchDatabase, makeScratchDatabase } from './postgres.ts';

const SIZE_TARGET_MB = 200;
const READY_TARGET_MS = 15_000;
/** server.shutdownGrace by default: the statement timeout (20 s) + 5 s. */
const DRAIN_MS = 25_000;
const FIRST_START_TIMEOUT_MS = 180_000;

const tag = `cqs-image-test-${process.pid}`;
const figures: string[] = [];
const note = (line: string) => {
  figures.push(line);
  process.stdout.write(`# ${line}\n`);
};

after(() => {
  removeContainer(`${tag}-embedded`, `${tag}-data`);
  removeContainer(`${tag}-postgres`);
  process.stdout.write(`\nimage test figures (${IMAGE}):\n${figures.map((f) => `  ${f}`).join('\n')}\n`);
});

test('the image: size, labels, user, port, volume, environment, health check', () => {
  const image = inspectImage();
  const mb = image.Size / 1e6;
  note(`image size ${mb.toFixed(1)} MB (target under ${SIZE_TARGET_MB} MB)`);
  assert.ok(mb < SIZE_TARGET_MB, `the image is ${mb.toFixed(1)} MB`);
  const config = image.Config;
  const labels = config.Labels ?? {};
  assert.equal(labels['org.opencontainers.image.version'], VERSION);
  assert.equal(labels['org.opencontainers.image.licenses'], 'Apache-2.0');
  assert.ok(labels['org.opencontainers.image.source'], 'a source label');
  assert.match(labels['io.hiero.contract-query-service.node-version'] ?? '', /^\d+\.\d+\.\d+$/);
  assert.match(config.User ?? '', /^[1-9]\d*:[1-9]\d*$/, 'a numeric user that is not root');
  assert.deepEqual(Object.keys(config.ExposedPorts ?? {}), ['5551/tcp']);
  assert.deepEqual(Object.keys(config.Volumes ?? {}), ['/data']);
  assert.equal(config.WorkingDir, '/app');
  assert.ok(config.Env?.includes('DATA_DIR=/data'));
  assert.equal(config.StopSignal, 'SIGTERM');
  assert.deepEqual(image.Healthcheck?.Test, ['CMD', 'node', '/app/dist/cli.js', 'probe', 'readiness']);
});

/** Sends SIGTERM with a live stream open; the stream must end and the container exit 0 within the drain time. */
async function stopCleanly(name: string, base: string): Promise<void> {
  const stream = await openStream(base);
  const sent = performance.now();
  podman(['kill', '--signal', 'SIGTERM', name]);
  let state = containerState(name);
  while (state.Running && performance.now() - sent < DRAIN_MS + 10_000) {
    await sleep(100);
    state = containerState(name);
  }
  const ms = performance.now() - sent;
  const ended = await Promise.race([stream.ended, sleep(1000, 'still open')]);
  note(`${name.replace(`${tag}-`, '')}: SIGTERM to exit ${(ms / 1000).toFixed(1)} s (drain time ${DRAIN_MS / 1000} s), exit code ${state.ExitCode}, live stream ${ended}`);
  assert.equal(state.Running, false, 'still running after the drain time');
  assert.ok(ms < DRAIN_MS, `took ${ms} ms`);
  assert.equal(state.ExitCode, 0);
  assert.match(ended, /^ended/);
  assert.match(podman(['logs', name]).stdout, /"msg":"stopped"/);
}

/** Ready, every route, metrics, documentation and the HEALTHCHECK of a started container. */
async function checkServing(name: string, base: string, since: number, what: string, timeoutMs: number): Promise<number> {
  const ms = await waitReady(base, since, timeoutMs, () => containerState(name).Running);
  const logs = podman(['logs', name]);
  const routes = await checkRoutes(base, bannerPaths(logs.stdout));
  await checkMetricsAndDocs(base);
  const health = podman(['healthcheck', 'run', name], { allowFail: true });
  assert.equal(health.status, 0, `HEALTHCHECK: ${health.stdout}${health.stderr}`);
  note(`${what}: first answer ${(ms / 1000).toFixed(1)} s; ${routes} example URLs, metrics, docs and HEALTHCHECK ok`);
  return ms;
}

test('embedded demo network: first start from the image\'s database, then a restart on its data', { timeout: 400_000 }, async () => {
  const name = `${tag}-embedded`;
  removeContainer(name, `${tag}-data`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const since = performance.now();
  podman(['run', '-d', '--name', name, ...RUN_FLAGS, '-p', `127.0.0.1:${port}:5551`, '-v', `${tag}-data:/data`, IMAGE]);
  await checkServing(name, base, since, 'embedded, first start', FIRST_START_TIMEOUT_MS);
  assert.match(podman(['logs', name]).stderr, /Copying the database of \/app\/demo-data into \/data/);
  await stopCleanly(name, base);

  const again = performance.now();
  podman(['start', name]);
  const ms = await checkServing(name, base, again, 'embedded, restart on its data', FIRST_START_TIMEOUT_MS);
  assert.ok(ms < READY_TARGET_MS, `a restart took ${ms} ms to its first answer (target ${READY_TARGET_MS})`);
  await stopCleanly(name, base);
});

let scratch: ScratchDatabase | undefined;
after(async () => {
  if (scratch) await dropScratchDatabase(scratch);
});

test('PostgreSQL: the machine\'s server, the demo network seeded by the image, served through a read-only user', { timeout: 300_000 }, async () => {
  scratch = await makeScratchDatabase(tag);
  const name = `${tag}-postgres`;
  removeContainer(name);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const since = performance.now();
  // the host's network: PostgreSQL listens on the host's loopback address; the port comes from the
  // reference's variable, which the HEALTHCHECK's probe follows too
  podman(['run', '-d', '--name', name, ...RUN_FLAGS, '--network', 'host',
    '-e', `DATABASE_URL=${scratch.readerUrl}`, '-e', `HIERO_MIRROR_REST_PORT=${port}`, IMAGE]);
  const ms = await checkServing(name, base, since, 'PostgreSQL (read-only user)', 60_000);
  assert.ok(ms < READY_TARGET_MS, `took ${ms} ms to its first answer (target ${READY_TARGET_MS})`);
  await stopCleanly(name, base);
});
