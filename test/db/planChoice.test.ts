/**
 * Statements planned per execution (planPerExecution, src/db/sql.ts) run with force_custom_plan, and
 * their connection goes back to the session's plan mode after them, also when they fail.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planPerExecution, sql } from '../../src/db/sql.ts';
import { openTestDatabase, testBackends } from '../support/database.ts';

const MODE = sql`select current_setting('plan_cache_mode') || ' ' || current_setting('enable_seqscan') as mode`;

for (const backend of testBackends()) {
  test(`${backend}: a statement planned per execution gets force_custom_plan, the others keep the session's mode`, async () => {
    const database = await openTestDatabase(backend);
    const { db } = database;
    try {
      const [session] = await db.query<{ mode: string }>(MODE);
      const [custom] = await db.query<{ mode: string }>(planPerExecution(MODE));
      assert.equal(custom!.mode, 'force_custom_plan off');
      // every connection of the pool is back in the session's mode: many at once take many connections
      const modes = await Promise.all(Array.from({ length: 20 }, (_, i) => db.query<{ mode: string }>(i % 2 ? planPerExecution(MODE) : MODE)));
      modes.forEach(([row], i) => assert.equal(row!.mode, i % 2 ? 'force_custom_plan off' : session!.mode));
      // a failing statement (an error the server answers) leaves its connection in the session's mode too
      await assert.rejects(db.query(planPerExecution(sql`select 1 / ${0}::int as x`)), /division by zero/);
      const after = await Promise.all(Array.from({ length: 10 }, () => db.query<{ mode: string }>(MODE)));
      for (const [row] of after) assert.equal(row!.mode, session!.mode);
      // and in a session (one connection throughout)
      await db.session(async (s) => {
        assert.equal((await s.query<{ mode: string }>(planPerExecution(MODE)))[0]!.mode, 'force_custom_plan off');
        assert.equal((await s.query<{ mode: string }>(MODE))[0]!.mode, session!.mode);
      });
    } finally {
      await database.close();
    }
  });
}
