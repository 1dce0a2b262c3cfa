/**
 * Lookups by EVM address answer as the lookup over every entity would, when the address moves to
 * another contract (a CREATE2 address taken again after its contract is deleted) and when its only
 * contract is deleted: on the v2 backends the second lookup of an address goes by the hinted id
 * (src/contracts/common/addressHints.ts), which must never answer for a contract that is gone.
 * An address no live entity has is answered absent again only while the newest record file is the
 * same. Runs on every test backend (the hints exist on the v2 layout and on Citus only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, openTestApp } from '../../support/app.ts';
import { testBackends } from '../../support/database.ts';
import type { Db } from '../../../src/db/db.ts';
import { addressHints } from '../../../src/contracts/common/addressHints.ts';
import { dbLayout, citusSafe } from '../../../src/db/layout.ts';

const ADDRESS = '5a1e0000000000000000000000000000000c0de1';
const ACCOUNT_ADDRESS = '5a1e0000000000000000000000000000000acc01';
const TS = 1_700_000_000_000_000_000n;

async function insertContract(db: Db, id: number, address: string, deleted: boolean): Promise<void> {
  await db.query(
    `insert into entity (id, num, realm, shard, type, timestamp_range, memo, evm_address, deleted)
     values ($1, $1, 0, 0, 'CONTRACT', '[1,)', '', $2, $3)`,
    [String(id), Buffer.from(address, 'hex'), deleted],
  );
  await db.query(`insert into contract (id, runtime_bytecode) values ($1, $2)`, [String(id), Buffer.from('6080', 'hex')]);
  await db.query(
    `insert into contract_log (bloom, consensus_timestamp, contract_id, data, index, payer_account_id, transaction_hash, transaction_index)
     values ('\\xff', $1, $2, '\\x01', 0, 5000, '\\xabcd', 1)`,
    [(TS + BigInt(id)).toString(), String(id)],
  );
}

for (const backend of testBackends()) {
  describe(`lookups by EVM address with hints (${backend})`, () => {
    let api: TestApp;

    before(async () => {
      api = await openTestApp(backend, async (db) => {
        await insertContract(db, 7001, ADDRESS, false);
        await db.query(
          `insert into entity (id, num, realm, shard, type, timestamp_range, memo, evm_address, deleted)
           values (7101, 7101, 0, 0, 'ACCOUNT', '[1,)', '', $1, false)`,
          [Buffer.from(ACCOUNT_ADDRESS, 'hex')],
        );
      });
    });

    after(() => api?.close());

    const lookup = async () => api.getJson(`/api/v1/contracts/0x${ADDRESS}`);
    const logsOf = async () => api.getJson(`/api/v1/contracts/0x${ADDRESS}/results/logs`);
    const senderResults = async () => api.getJson(`/api/v1/contracts/0.0.7001/results?from=0x${ACCOUNT_ADDRESS}`);

    test('the address, its logs and a sender by address, twice: the same answers', async () => {
      for (let round = 0; round < 2; round++) {
        const contract = await lookup();
        assert.equal(contract.status, 200);
        assert.equal(contract.body.contract_id, '0.0.7001');
        const logs = await logsOf();
        assert.equal(logs.status, 200);
        assert.deepEqual(logs.body.logs.map((l: { contract_id: string }) => l.contract_id), ['0.0.7001']);
        assert.equal((await senderResults()).status, 200);
      }
      // where the lookup by address reaches every shard, each lookup left a hint
      if (citusSafe(dbLayout(api.db))) assert.equal(addressHints(api.db)!.size, 3);
      else assert.equal(addressHints(api.db), undefined);
    });

    test('the contract deleted and the address taken by another: the lookup by address answers, never the hint', async () => {
      await api.db.query(`update entity set deleted = true where id = 7001`);
      // the only contract with the address, deleted: found (the lookup takes deleted contracts), its logs not
      assert.equal((await lookup()).body.contract_id, '0.0.7001');
      assert.equal((await logsOf()).status, 404);

      await insertContract(api.db, 7002, ADDRESS, false);
      // two contracts with the address: not found, as the reference; the live one's logs
      assert.equal((await lookup()).status, 404);
      const logs = await logsOf();
      assert.equal(logs.status, 200);
      assert.deepEqual(logs.body.logs.map((l: { contract_id: string }) => l.contract_id), ['0.0.7002']);
      assert.deepEqual((await logsOf()).body, logs.body);

      await api.db.query(`update entity set deleted = true where id = 7101`);
      assert.equal((await senderResults()).status, 404);
    });
  });
}

const ABSENT = '5a1e00000000000000000000000000000000ab5e';

async function insertBlock(db: Db, index: number, end: bigint): Promise<void> {
  await db.query(
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, version, file_hash, index, node_id)
     values ($1, 0, 0, $2, '', $3, $3, 1, 0, 6, '', $4, 3)`,
    [`f${index}.rcd`, 'ab'.repeat(48), end.toString(), index],
  );
}

for (const backend of testBackends()) {
  describe(`lookups of an address no entity has (${backend})`, () => {
    let api: TestApp;

    before(async () => {
      api = await openTestApp(backend, async (db) => insertBlock(db, 1, TS));
    });

    after(() => api?.close());

    test('absent until a record file is written: the importer writes an entity with its record file', async () => {
      const lookup = async () => (await api.getJson(`/api/v1/contracts/0x${ABSENT}`)).status;
      const logs = async () => (await api.getJson(`/api/v1/contracts/0x${ABSENT}/results/logs`)).status;
      assert.equal(await lookup(), 404);
      assert.equal(await logs(), 404);
      // an entity written without its record file (never the importer's way): where absence is kept
      // (the v2 layouts), the answer stands until the newest record file changes
      await insertContract(api.db, 7301, ABSENT, false);
      const kept = citusSafe(dbLayout(api.db));
      assert.equal(await lookup(), kept ? 404 : 200);
      assert.equal(await logs(), kept ? 404 : 200);
      await insertBlock(api.db, 2, TS + 10n);
      assert.equal(await lookup(), 200);
      assert.equal(await logs(), 200);
    });
  });
}
