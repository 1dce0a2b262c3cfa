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
import { fuzzRequests } from '../../../../bench/lib/fuzzInput.ts';
import { readUrlFile } from '../../../../bench/lib/urls.ts';
import { routes } from '../../../../src/app.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { testConfig } from '../../../support/app.ts';
import { fakeDb } from '../../../support/database.ts';
import { sendFuzzed } from '../../../support/fuzzSend.ts';

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
    const { failures } = await sendFuzzed(port, requests);
    assert.deepEqual(failures, []);
    assert.ok(seen.length > 20, `requests reached the upstream (${seen.length})`);
    assert.ok(seen.every((url) => url.startsWith('/mirror/')), 'always under the upstream\'s path');
  } finally {
    await app.close();
    upstream.closeAllConnections();
    upstream.close();
  }
});
