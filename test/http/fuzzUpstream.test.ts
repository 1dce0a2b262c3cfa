/**
 * The fuzzer's requests (bench/lib/fuzzInput.ts: absolute-form, asterisk-form and `//` targets among
 * them) against the app with upstream.url set, the upstream a loopback server answering 200: every
 * request answered, none with a 5xx, and nothing the proxy sent left the upstream's origin. (The same
 * requests without an upstream: test/bench/fuzz.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fuzzRequests, isolated, serialize } from '../../bench/lib/fuzzInput.ts';
import { RawClient } from '../../bench/lib/rawClient.ts';
import { readUrlFile } from '../../bench/lib/urls.ts';
import { routes } from '../../src/app.ts';
import { buildApp } from '../../src/http/server/server.ts';
import { testConfig } from '../support/app.ts';
import { fakeDb } from '../support/database.ts';

test('fuzzed requests with upstream.url set: every one answered, no 5xx; the target forms reach the upstream by their path', { timeout: 300_000 }, async () => {
  const seen: string[] = [];
  const upstream = createServer((request, response) => {
    seen.push(request.url ?? '');
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"upstream":true}'));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const app = buildApp({ config: testConfig({ UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}/mirror` }), db: fakeDb(), routes });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  try {
    const urls = readUrlFile('bench/urls-demo.txt');
    const requests = [...fuzzRequests(urls, `127.0.0.1:${port}`, Number(process.env.FUZZ_SEED ?? 2), 1500)];
    const forms = requests.filter((r) => !r.target.startsWith('/') || r.target.startsWith('//')).length;
    assert.ok(forms > 50, `the fuzzer sends other target forms (${forms})`);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = new RawClient(port);
        while (next < requests.length) {
          const request = requests[next++]!;
          const outcome = await client.send(serialize(request), request.method === 'HEAD', 20_000);
          if (isolated(request)) client.close();
          if ('error' in outcome) failures.push(`${outcome.error}: ${request.method} ${request.target}`);
          else {
            statuses.set(outcome.answer.status, (statuses.get(outcome.answer.status) ?? 0) + 1);
            if (outcome.answer.status >= 500) failures.push(`${outcome.answer.status}: ${request.method} ${request.target} ${outcome.answer.body.toString().slice(0, 200)}`);
          }
        }
        client.close();
      }),
    );
    assert.deepEqual(failures, []);
    assert.ok(seen.length > 20, `requests reached the upstream (${seen.length})`);
    assert.ok(seen.every((url) => url.startsWith('/mirror/')), 'always under the upstream\'s path');
  } finally {
    await app.close();
    upstream.closeAllConnections();
    upstream.close();
  }
});
