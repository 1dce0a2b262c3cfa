/**
 * The plan sweep (bench/scenarios/planSweep.ts): its verdict, and a short run on the test database filled with
 * the demo network: every route is swept, every statement the routes send is timed with both plans,
 * and none is slow.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { migrate } from '../../src/db/migrate.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { ENDPOINTS } from '../../bench/lib/urls.ts';
import { runSweep } from '../../bench/plans/sweep.ts';
import { judge } from '../../bench/plans/timing.ts';
import { createScratchDatabase } from '../support/database.ts';

test('the verdict: slow only when over 3x and over 20 ms slower than the better plan', () => {
  assert.equal(judge(1, 500, 500).slow, true); // a custom plan 500x slower than the generic one
  assert.equal(judge(900, 5, 900).slow, true); // the generic plan of the cliff
  assert.equal(judge(1, 15, 15).slow, false); // 15x, but 14 ms: noise at this size
  assert.equal(judge(100, 40, 100).slow, false); // 60 ms, but 2.5x
  assert.equal(judge(100, 40, 40).slow, false);
  assert.deepEqual(judge(10, 3, 10), { genericMs: 10, customMs: 3, serviceMs: 10, bestMs: 3, slow: false });
});

const url = process.env.TEST_DATABASE_URL;

test('a short sweep on the demo network: every route, every statement timed with both plans, none slow', {
  skip: url ? false : 'needs TEST_DATABASE_URL (the sweep times statements on connections of its own)',
  timeout: 600_000,
}, async () => {
  const scratch = await createScratchDatabase(url!, 'cqs_test_sweep');
  try {
    const db = createPostgresDb(loadConfig({ DATABASE_URL: scratch.url }, '/nonexistent'));
    try {
      await migrate(db);
      await seedDemo(db, { scale: 0.2 });
      await db.exec('analyze');
    } finally {
      await db.close();
    }
    const report = await runSweep({ url: scratch.url, quick: true });
    const swept = new Set(report.rows.map((r) => r.shape.endpoint));
    assert.deepEqual([...ENDPOINTS].filter((e) => !swept.has(e)), [], 'every route sends statements in the sweep');
    // the classes were found in the demo data, not made up: a dense topic differs from an absent one
    assert.notEqual(report.samples.network.columns[0]!.dense, report.samples.network.columns[0]!.absent);
    assert.notEqual(report.samples.contracts.hotLogs, report.samples.contracts.absent);
    for (const row of report.rows) {
      const expected = row.shape.values.includes('absent contract') && row.shape.endpoint === 'lookup' ? 404 : 200;
      assert.equal(row.status, expected, `${row.path} answers ${expected}`);
      assert.ok(row.timing.genericMs > 0 && row.timing.customMs > 0, `${row.statement.sender} timed with both plans`);
      assert.notEqual(row.statement.sender, 'unknown', `the sender of ${row.statement.text.slice(0, 80)} is found`);
    }
    // the sweep sees both plan choices of the service
    assert.ok(report.rows.some((r) => r.statement.plan === 'custom'));
    assert.ok(report.rows.some((r) => r.statement.plan === 'cached'));
    assert.deepEqual(report.slow.map((r) => r.path), []);
  } finally {
    await scratch.drop();
  }
});
