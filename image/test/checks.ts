/**
 * What the image test asks a running container: readiness (timed), an example URL of every route,
 * the metrics and the API documentation.
 */
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls /health/readiness until it answers 200; returns the ms since `since` (performance.now()). */
export async function waitReady(base: string, since: number, timeoutMs: number, alive: () => boolean): Promise<number> {
  while (performance.now() - since < timeoutMs) {
    try {
      const response = await fetch(`${base}/health/readiness`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return performance.now() - since;
      await response.body?.cancel();
    } catch {
      // not listening yet
    }
    if (!alive()) throw new Error('the container stopped before it was ready');
    await sleep(100);
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}

/** The routes, each with the pattern of its paths (a path is matched by the first that fits). */
export const ROUTES: Array<[string, RegExp]> = [
  ['/contracts/results/{transactionIdOrHash}/actions', /^\/api\/v1\/contracts\/results\/[^/?]+\/actions(\?|$)/],
  ['/contracts/results/logs', /^\/api\/v1\/contracts\/results\/logs(\?|$)/],
  ['/contracts/results/{transactionIdOrHash}', /^\/api\/v1\/contracts\/results\/[^/?]+(\?|$)/],
  ['/contracts/results', /^\/api\/v1\/contracts\/results(\?|$)/],
  ['/contracts/{id}/results/logs', /^\/api\/v1\/contracts\/[^/?]+\/results\/logs(\?|$)/],
  ['/contracts/{id}/results/{timestamp}', /^\/api\/v1\/contracts\/[^/?]+\/results\/[^/?]+(\?|$)/],
  ['/contracts/{id}/results', /^\/api\/v1\/contracts\/[^/?]+\/results(\?|$)/],
  ['/contracts/{id}/state', /^\/api\/v1\/contracts\/[^/?]+\/state(\?|$)/],
  ['/contracts/{id}', /^\/api\/v1\/contracts\/[^/?]+(\?|$)/],
  ['/contracts', /^\/api\/v1\/contracts(\?|$)/],
];

/** The example paths of the last start banner (`http://localhost:PORT/api/v1/...` lines) in a container's log. */
export function bannerPaths(logs: string): string[] {
  const banner = logs.slice(logs.lastIndexOf('contract-query-service listening on'));
  return [...banner.matchAll(/^\s+http:\/\/localhost:\d+(\/api\/v1\/\S+)$/gm)].map((m) => m[1]!);
}

/** Asks every banner example (which must cover every route) and checks each answers 200 with data. */
export async function checkRoutes(base: string, paths: string[]): Promise<number> {
  const covered = new Set<string>();
  for (const path of paths) {
    const route = ROUTES.find(([, pattern]) => pattern.test(path));
    assert.ok(route, `no route matches the example ${path}`);
    covered.add(route[0]);
    const response = await fetch(`${base}${path}`);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(response.status, 200, `${path}: ${JSON.stringify(body).slice(0, 200)}`);
    // a listing is its array and `links`; one item is an object of many fields
    const listed = 'links' in body ? (Object.entries(body).find(([key]) => key !== 'links')?.[1] as unknown[] | undefined) : undefined;
    assert.ok('links' in body ? Array.isArray(listed) && listed.length > 0 : Object.keys(body).length > 3, `${path} answered no data: ${JSON.stringify(body).slice(0, 200)}`);
  }
  const missing = ROUTES.map(([name]) => name).filter((name) => !covered.has(name));
  assert.deepEqual(missing, [], `the banner has no example of ${missing.join(', ')}`);
  return paths.length;
}

/** The Prometheus metrics at both paths, and the API documentation (Swagger UI and the document). */
export async function checkMetricsAndDocs(base: string): Promise<void> {
  for (const path of ['/metrics', '/swagger/metrics/']) {
    const response = await fetch(`${base}${path}`);
    const text = await response.text();
    assert.equal(response.status, 200, path);
    assert.match(text, /^http_requests_total\{.*route="\/api\/v1\/contracts/m, `${path} counts no contract requests`);
  }
  const ui = await fetch(`${base}/api/v1/docs/`);
  assert.equal(ui.status, 200, '/api/v1/docs/');
  assert.match(await ui.text(), /swagger-ui/i);
  const document = await fetch(`${base}/api/v1/docs/openapi.json`);
  assert.equal(document.status, 200, '/api/v1/docs/openapi.json');
  const paths = Object.keys(((await document.json()) as { paths: Record<string, unknown> }).paths);
  assert.ok(paths.length >= ROUTES.length, `the API document lists ${paths.length} paths`);
  const liveness = await fetch(`${base}/health/liveness`);
  assert.equal(liveness.status, 200, '/health/liveness');
  await liveness.body?.cancel();
}

/** Opens a live logs stream and waits for its first bytes; `ended` tells how it ended (wrapped: a promise resolved with a promise would wait for it). */
export function openStream(base: string): Promise<{ ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const request = get(`${base}/api/v1/contracts/results/logs`, { headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`event stream: ${response.statusCode}`));
        return;
      }
      let text = '';
      const ended = new Promise<string>((done) => {
        response.on('end', () => done(`ended${/event: error/.test(text) ? ' with an error event' : ''}`));
        response.on('error', (err) => done(`failed: ${err.message}`));
      });
      response.setEncoding('utf8');
      response.once('data', () => resolve({ ended }));
      response.on('data', (chunk: string) => (text += chunk));
    });
    request.on('error', reject);
    request.setTimeout(30_000, () => request.destroy(new Error('event stream: no bytes within 30 s')));
  });
}
