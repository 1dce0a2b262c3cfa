/**
 * Newest-first pages on the database (src/contracts/common/newestFirst.ts): a contract whose few
 * rows lie weeks apart, and one with none, read twice and with bounds, and after new rows arrive.
 * The second reads go by what the first learnt (where the contract's rows start) on the partitioned
 * backends; every answer must still hold every row. Runs on every test backend.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, openTestApp, testConfig } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import type { Db } from '../../../src/db/db.ts';
import { seconds } from '../../support/timestamps.ts';

const DAY = 86_400_000_000_000n;
const BASE = 1_700_000_000_000_000_000n;
/** Contract 8001's rows: days 1, 10 and 29; 8002 has none until the last test. */
const DAYS = [1n, 10n, 29n];

async function insertRow(db: Db, contract: number, ts: bigint): Promise<void> {
  await db.query(
    `insert into contract_log (bloom, consensus_timestamp, contract_id, data, index, payer_account_id, transaction_hash, transaction_index)
     values ('\\xff', $1, $2, '\\x01', 0, 5000, '\\xabcd', 1)`,
    [ts.toString(), String(contract)],
  );
  await db.query(
    `insert into contract_result (consensus_timestamp, contract_id, payer_account_id, transaction_nonce, transaction_result, function_parameters, gas_limit, gas_used)
     values ($1, $2, 5000, 0, 22, '\\x00', 100, 50)`,
    [ts.toString(), String(contract)],
  );
}

async function insertBlock(db: Db, index: number, start: bigint, end: bigint): Promise<void> {
  await db.query(
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, version, file_hash, index, node_id)
     values ($1, 0, 0, $2, '', $3, $4, 1, 0, 6, '', $5, 3)`,
    [`f${index}.rcd`, 'ab'.repeat(48), start.toString(), end.toString(), index],
  );
}

for (const backend of testBackends()) {
  describe(`newest-first pages (${backend})`, () => {
    let api: TestApp;

    before(async () => {
      api = await openTestApp(
        backend,
        async (db) => {
          for (const day of DAYS) await insertRow(db, 8001, BASE + day * DAY);
          await insertBlock(db, 1, BASE, BASE + 30n * DAY);
        },
        { config: testConfig({ HIERO_MIRROR_REST_DB_NEWESTFIRSTSPAN: '7d' }) },
      );
    });

    after(() => api?.close());

    const timestamps = async (path: string, key: 'logs' | 'results') => {
      const reply = await api.getJson(path);
      assert.equal(reply.status, 200, path);
      return (reply.body[key] as Array<{ timestamp: string }>).map((row) => row.timestamp);
    };
    const all = DAYS.map((day) => seconds(BASE + day * DAY)).reverse();

    for (const key of ['logs', 'results'] as const) {
      const path = key === 'logs' ? 'results/logs' : 'results';
      test(`${key}: every row, again, and with bounds`, async () => {
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8001/${path}?limit=1&order=asc`, key), [all[2]]);
        for (let round = 0; round < 2; round++) assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8001/${path}?limit=100`, key), all);
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8001/${path}?limit=2`, key), all.slice(0, 2));
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8001/${path}?limit=100&timestamp=lt:${seconds(BASE + 20n * DAY)}`, key), all.slice(1));
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8001/${path}?limit=100&order=asc`, key), [...all].reverse());
      });

      test(`${key}: a contract without rows, then a row in a new block`, async () => {
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8002/${path}?order=asc`, key), []);
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8002/${path}`, key), []);
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8002/${path}`, key), []);
      });
    }

    test('new rows after the newest block are found by every key', async () => {
      // new rows half a day after the last block (the ceiling is a day after it, whatever the memo holds)
      const ts = BASE + 30n * DAY + DAY / 2n;
      await insertRow(api.db, 8002, ts);
      await insertRow(api.db, 8001, ts + 1n);
      await insertBlock(api.db, 2, BASE + 30n * DAY + 1n, BASE + 31n * DAY);
      // the split moves with the newest block only after the memo's second; either split gives these rows
      await new Promise((resolve) => setTimeout(resolve, 1100));
      for (const [key, path] of [['logs', 'results/logs'], ['results', 'results']] as const) {
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8002/${path}`, key), [seconds(ts)]);
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8001/${path}?limit=100`, key), [seconds(ts + 1n), ...all]);
        assert.deepEqual(await timestamps(`/api/v1/contracts/0.0.8002/${path}?order=asc`, key), [seconds(ts)]);
      }
    });
  });
}
