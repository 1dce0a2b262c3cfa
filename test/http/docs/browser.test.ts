/**
 * Swagger UI in a real browser: Debian's Chromium (driven by playwright-core) opens /api/v1/docs of
 * the app on the demo network, expands the logs route, tries it out on the ERC-20 token (which has
 * logs) and sees a 200 with logs in the rendered response. Every request of the page goes to the app
 * (no CDN). Skipped when Chromium is not installed (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { ID } from '../../../src/demo/network.ts';
import { seedDemo } from '../../../src/demo/seed.ts';
import { openTestApp } from '../../support/app.ts';

const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** How long one step (a page load, a click's effect, the answer) may take. */
const STEP_MS = 60_000;

const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium): the Swagger UI browser test is skipped`;

test('Swagger UI: try out the logs route of a contract with logs and see its logs', { skip, timeout: 300_000 }, async () => {
  const contract = `0.0.${ID.token}`;
  const t = await openTestApp('embedded', (db) => seedDemo(db, { scale: 0.3 }));
  const userDataDir = mkdtempSync(join(tmpdir(), 'cqs-chromium-'));
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      timeout: STEP_MS,
    });
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      page.setDefaultTimeout(STEP_MS);
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        const url = request.url();
        if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) elsewhere.push(url);
      });

      await page.goto(`${origin}/api/v1/docs`);
      const operation = page.locator('#operations-contracts-getContractLogsByContractId');
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const contractInput = operation.locator('tr[data-param-name="contractIdOrAddress"] input');
      await contractInput.fill(contract);
      await operation.getByRole('button', { name: 'Execute' }).click();

      const status = operation.locator('.live-responses-table .response .response-col_status');
      await status.waitFor();
      const requestUrl = await operation.locator('.request-url pre').textContent();
      assert.match(requestUrl ?? '', new RegExp(`^${origin}/api/v1/contracts/${contract}/results/logs(\\?|$)`));
      assert.equal((await status.textContent())?.trim(), '200');
      const rendered = await operation.locator('.live-responses-table .response .response-col_description pre').first().textContent();
      const body = JSON.parse(rendered ?? '') as { logs: Array<{ contract_id: string; topics: string[] }>; links: { next: string | null } };
      assert.ok(body.logs.length > 0, 'the rendered response holds logs');
      assert.ok(body.logs.every((log) => log.contract_id === contract && log.topics.length > 0));
      assert.deepEqual(elsewhere, [], 'every request of the page goes to the app');
    } finally {
      await browser.close();
    }
  } finally {
    await t.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
});
