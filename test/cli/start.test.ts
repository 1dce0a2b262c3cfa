import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertHasData, endpointOf, served } from '../support/endpoints.ts';
import { freePort, npmStart } from './run.ts';

/**
 * The README's quick start, as a user runs it: `npm start` (here with a free port and a fresh data
 * directory) prints a banner with example URLs that all answer with data; SIGTERM stops it with exit
 * code 0; the next start on the same directory reuses the data and is quick.
 */

const BANNER_END = 'stop with Ctrl-C';
const URL_PATTERN = /http:\/\/localhost:\d+\/api\/v1\/\S+/g;

/** URLs of routes the service does not have yet (their data is checked by test/demo). */
const notServed: string[] = [];

async function checkUrl(url: string): Promise<void> {
  const endpoint = endpointOf(url);
  if (!served(endpoint)) {
    if (!notServed.includes(url)) notServed.push(url);
    return;
  }
  const res = await fetch(url);
  const text = await res.text();
  assert.equal(res.status, 200, `${url} answered ${res.status}: ${text.slice(0, 300)}`);
  assertHasData(endpoint, JSON.parse(text), url);
}

test('first start seeds a demo network, every banner URL answers with data, a restart reuses it', { timeout: 240_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-start-'));
  const port = await freePort();
  const serve = () => npmStart(['--port', String(port), '--data-dir', dir]);
  try {
    const first = serve();
    const firstMs = await first.waitFor(BANNER_END, 120_000);
    const banner = first.stdout();
    assert.match(banner, new RegExp(`listening on http://localhost:${port}`));
    assert.match(banner, /demo network created in/);
    const urls = banner.match(URL_PATTERN) ?? [];
    assert.equal(urls.length, 13, `thirteen example URLs, got ${urls.length}`);
    for (const url of urls) await checkUrl(url);

    // the data directory is locked while in use
    const intruder = npmStart(['--port', String(await freePort()), '--data-dir', dir]);
    assert.equal(await intruder.exited, 1);
    assert.match(intruder.stderr(), /is in use by process \d+/);

    assert.equal(await first.stop('SIGTERM'), 0);
    assert.equal(existsSync(join(dir, 'cqs.pid')), false, 'the lock is released');

    const second = serve();
    const secondMs = await second.waitFor(BANNER_END, 60_000);
    assert.match(second.stdout(), /existing data reused/);
    assert.doesNotMatch(second.stderr(), /Creating/);
    assert.deepEqual(second.stdout().match(URL_PATTERN), urls, 'the same example URLs');
    await checkUrl(urls[0]!);
    assert.equal(await second.stop('SIGTERM'), 0);

    t.diagnostic(`first start ${Math.round(firstMs)} ms (target 15000), later start ${Math.round(secondMs)} ms (target 3000)`);
    if (notServed.length) t.diagnostic(`not served yet, not requested: ${notServed.join(' ')}`);
    assert.ok(secondMs < 10_000, `a later start is quick (${Math.round(secondMs)} ms)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an interrupted first start keeps nothing; the next start seeds again', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-interrupt-'));
  const port = await freePort();
  const serve = () => npmStart(['--port', String(port), '--data-dir', dir]);
  try {
    const interrupted = serve();
    await interrupted.waitFor('Creating the demo network', 120_000);
    assert.equal(await interrupted.stop('SIGINT'), 130);
    assert.match(interrupted.stderr(), /nothing was kept, the next start creates it again/);
    assert.equal(existsSync(join(dir, 'cqs.pid')), false, 'the lock is released');

    const next = serve();
    await next.waitFor(BANNER_END, 120_000);
    assert.match(next.stdout(), /demo network created in/);
    assert.equal(await next.stop('SIGINT'), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
