/**
 * `probe readiness|liveness` (the image's HEALTHCHECK): exit 0 when the service on the configured
 * port answers 200, 1 on any other answer or none, 2 on a wrong kind; the port follows the
 * reference's variable.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import { test } from 'node:test';
import { ROOT, freePort } from './run.ts';

/** Runs the probe in a child process (asynchronously: the server answering it is in this one). */
function probe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'probe', ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' }, (err, stdout) => {
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout });
    });
  });
}

test('probe: 200 is 0, 503 is 1, no service is 1, a wrong kind is 2; the port from the variable', async (t) => {
  const port = await freePort();
  let readiness = 200;
  const server: Server = createServer((request, response) => {
    response.writeHead(request.url === '/health/readiness' ? readiness : request.url === '/health/liveness' ? 200 : 404).end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.after(() => server.close());
  const env = { HIERO_MIRROR_REST_PORT: String(port) };
  assert.deepEqual(await probe(['readiness'], env), { status: 0, stdout: 'readiness: 200 {"status":"ok"}\n' });
  assert.equal((await probe(['liveness'], env)).status, 0);
  readiness = 503;
  assert.equal((await probe(['readiness'], env)).status, 1);
  assert.equal((await probe(['readiness', '--port', String(port)])).status, 1);
  server.close();
  const none = await probe(['liveness'], env);
  assert.equal(none.status, 1);
  assert.match(none.stdout, /no answer from http:\/\/127\.0\.0\.1:\d+\/health\/liveness/);
  assert.equal((await probe(['startup'], env)).status, 2);
});
