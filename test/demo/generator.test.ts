import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Endpoint, demoExamples } from '../../src/demo/examples.ts';
import { WRITTEN_TABLES, accountEvmAddress } from '../../src/demo/generator.ts';
import { FIRST_BLOCK, GENERATOR_VERSION, ID, T0, TOPIC, contractAddress } from '../../src/demo/network.ts';
import { type DatabaseState, inspectDatabase, ownsData, seedDemo } from '../../src/demo/seed.ts';
import { appOn, get } from '../support/app.ts';
import { assertHasData, endpointOf, served } from '../support/endpoints.ts';
import { type TestDatabase, openTestDatabase, testBackends } from '../support/database.ts';
import { tableChecksums } from './checksum.ts';

const one = async <R>(t: TestDatabase, sql: string, values: unknown[] = []): Promise<R> => (await t.db.query<R>(sql, values))[0]!;
const count = async (t: TestDatabase, sql: string, values: unknown[] = []): Promise<number> =>
  Number((await one<{ n: string }>(t, sql, values)).n);

/**
 * The rows of scale 0.3, pinned: a change to the generator that changes them bumps GENERATOR_VERSION
 * and updates these on purpose (a refactoring leaves them alone).
 */
const PINNED = {
  generatorVersion: 2,
  checksums: {
    entity: '159:e672b28d178f6ffcd488a5b5f38bc270',
    entity_history: '2:fc047445503d05f9e98cf74298e87e05',
    contract: '33:461935edab9256daaacc86fb82cdd079',
    file_data: '14:9f26074050e1b6578804afb0c9317651',
    record_file: '1828:0c6521cd59b431ad87386294b211b947',
    contract_result: '1879:41ea1018af8d73e2affcc3ddb3917360',
    contract_log: '3854:06c91c7a8a87a495011d0b6b843da350',
    transaction: '1881:43400cef1bd3efc63e70ea6858222c66',
    ethereum_transaction: '910:91ce3742ea5f27741ecc3952b5b8feca',
    contract_transaction_hash: '1879:dbf2fa19ade56ac86c02b14570d70c5e',
    contract_transaction: '6123:a86cda128a1013662579960d57ad592e',
    transaction_hash: '2791:d22066828d118bebb95e939268f2a3f8',
    contract_action: '5101:f020abe672b9dfee832e8f4e6b1456bb',
    contract_state_change: '7681:97a45d3125ce6f43407632b4728b571a',
    contract_state: '1644:3a424ca404eae93c4bf8ed8ab7e33fd1',
    address_book: '1:124ee9caa6aa7af48dc31bc22bf83e18',
  },
};

describe('demo generator: determinism', () => {
  let t: TestDatabase;
  before(async () => {
    t = await openTestDatabase('embedded');
  });
  after(() => t.close());

  test('the same scale gives the same rows; another scale other rows; reseeding replaces', async () => {
    await seedDemo(t.db, { scale: 0.3 });
    const first = await tableChecksums(t.db);
    await seedDemo(t.db, { scale: 0.5 });
    const other = await tableChecksums(t.db);
    await seedDemo(t.db, { scale: 0.3 });
    const again = await tableChecksums(t.db);
    assert.deepEqual(again, first);
    assert.notEqual(other.contract_result, first.contract_result);
    assert.notEqual(other.contract_log, first.contract_log);
    // the cast does not depend on the scale
    assert.equal(await count(t, `select count(*) as n from entity where id between 2001 and 2007`), 7);
  });

  test('the rows of scale 0.3 are the pinned ones of this GENERATOR_VERSION', async () => {
    await seedDemo(t.db, { scale: 0.3 });
    assert.equal(GENERATOR_VERSION, PINNED.generatorVersion, 'GENERATOR_VERSION changed: update PINNED with it');
    assert.deepEqual(await tableChecksums(t.db), PINNED.checksums);
  });

  test('PostgreSQL and the embedded database get identical rows', { skip: testBackends().includes('postgres') ? false : 'needs TEST_DATABASE_URL' }, async () => {
    const pg = await openTestDatabase('postgres');
    try {
      await seedDemo(t.db, { scale: 0.3 });
      await seedDemo(pg.db, { scale: 0.3 });
      assert.deepEqual(await tableChecksums(pg.db), await tableChecksums(t.db));
    } finally {
      await pg.close();
    }
  });

  test('an interrupted seed leaves nothing behind', async () => {
    await t.db.exec(`truncate ${WRITTEN_TABLES.join(', ')}; drop table if exists cqs_demo`);
    let polls = 0;
    await assert.rejects(seedDemo(t.db, { scale: 0.3, shouldStop: () => ++polls > 40 }), /interrupted/);
    assert.equal(await count(t, `select count(*) as n from contract_result`), 0);
    assert.equal(await count(t, `select count(*) as n from entity`), 0);
    const state = await inspectDatabase(t.db);
    assert.equal(state.demo, null);
    assert.equal(ownsData(state), true);
  });
});

describe('demo generator: the default network has something for every feature', () => {
  let t: TestDatabase;
  let facts: Record<string, string>;
  before(async () => {
    t = await openTestDatabase('embedded');
    facts = (await seedDemo(t.db, { scale: 1 })).facts;
  });
  after(() => t.close());

  test('thousands of results and logs over several days, every one inside a block', async () => {
    assert.ok((await count(t, `select count(*) as n from contract_result`)) > 5000);
    assert.ok((await count(t, `select count(*) as n from contract_log`)) > 10000);
    const span = await one<{ days: string }>(t, `select (max(consensus_timestamp) - min(consensus_timestamp)) / 86400000000000 as days from contract_result`);
    assert.ok(Number(span.days) >= 4);
    for (const table of ['contract_result', 'contract_log']) {
      const outside = await count(t, `select count(*) as n from ${table} x where not exists (select 1 from record_file r
        where x.consensus_timestamp between r.consensus_start and r.consensus_end)`);
      assert.equal(outside, 0, `${table} rows outside every record file`);
    }
    const bad = await count(t, `select count(*) as n from record_file where length(hash) <> 96 or hash !~ '^[0-9a-f]+$'
      or index <> ${FIRST_BLOCK} + (consensus_start - ${T0}) / 2000000000 or consensus_start > consensus_end`);
    assert.equal(bad, 0);
    // blocks with several contract transactions, transaction_index increasing with the timestamp
    assert.ok((await count(t, `select count(*) as n from record_file where count >= 10`)) > 0);
    const unordered = await count(t, `select count(*) as n from (select transaction_index, lag(transaction_index) over (partition by r.index order by c.consensus_timestamp) as prev
      from contract_result c join record_file r on c.consensus_timestamp between r.consensus_start and r.consensus_end) x where prev >= transaction_index`);
    assert.equal(unordered, 0);
  });

  test('ERC-20 Transfer and Approval with address topics stored as the importer stores them', async () => {
    const rows = await t.db.query<{ topic0: string; n: string }>(
      `select topic0, count(*) as n from contract_log where contract_id = $1 group by topic0`, [ID.token]);
    const topics = rows.map((r) => r.topic0);
    assert.ok(topics.includes(TOPIC.Transfer) && topics.includes(TOPIC.Approval));
    // leading zero bytes stripped, at least one byte kept (the zero address is a single 00)
    const unstripped = await count(t, `select count(*) as n from contract_log where
      (length(topic1) > 1 and get_byte(topic1, 0) = 0) or (length(topic2) > 1 and get_byte(topic2, 0) = 0)
      or (length(topic3) > 1 and get_byte(topic3, 0) = 0) or length(topic1) = 0 or length(topic2) = 0`);
    assert.equal(unstripped, 0);
    const longZeroSender = await count(t, `select count(*) as n from contract_log where topic0 = $1 and length(topic1) < 20`, [Buffer.from(TOPIC.Transfer, 'hex')]);
    assert.ok(longZeroSender > 0, 'Transfers from accounts without an EVM alias have a short (long-zero) topic');
    assert.ok((await count(t, `select count(*) as n from contract_log where topic1 = '\\x00'::bytea`)) > 0, 'mints from the zero address');
  });

  test('AMM pair: Swap and Sync emitted inside router calls; create2 address', async () => {
    const swap = await count(t, `select count(*) as n from contract_log where contract_id = $1 and topic0 = $2 and root_contract_id = $3`,
      [ID.pair, Buffer.from(TOPIC.Swap, 'hex'), ID.router]);
    const sync = await count(t, `select count(*) as n from contract_log where contract_id = $1 and topic0 = $2`, [ID.pair, Buffer.from(TOPIC.Sync, 'hex')]);
    assert.ok(swap > 100 && sync > swap);
    const pair = await one<{ evm_address: string }>(t, `select evm_address from entity where id = $1`, [ID.pair]);
    assert.equal(pair.evm_address.length, 40);
    assert.notEqual(pair.evm_address.slice(0, 24), '0'.repeat(24));
    assert.equal(pair.evm_address, contractAddress(ID.pair).toString('hex'));
    const created = await count(t, `select count(*) as n from contract_result where created_contract_ids = array[$1::bigint] and contract_id = $2`, [ID.pair, ID.factory]);
    assert.equal(created, 1);
  });

  test('NFT transfers carry the token id in topic3', async () => {
    const n = await count(t, `select count(*) as n from contract_log where contract_id = $1 and topic0 = $2 and topic3 = $3`,
      [ID.nft, Buffer.from(TOPIC.Transfer, 'hex'), Buffer.from(BigInt(facts.nft_token!).toString(16).padStart(2, '0'), 'hex')]);
    assert.ok(n >= 2);
  });

  test('failed transactions, internal results, Ethereum transactions of types 0, 1 and 2', async () => {
    const failed = await t.db.query<{ transaction_result: number; n: string }>(
      `select transaction_result, count(*) as n from contract_result where transaction_result <> 22 and error_message is not null group by 1 order by 1`);
    assert.deepEqual(failed.map((r) => r.transaction_result), [30, 33]);
    assert.ok((await count(t, `select count(*) as n from contract_log l join contract_result r using (consensus_timestamp) where r.transaction_result <> 22`)) === 0);
    assert.ok((await count(t, `select count(*) as n from contract_result where transaction_nonce > 0 and contract_id = 359`)) > 50);
    const types = await t.db.query<{ type: number }>(`select distinct type from ethereum_transaction order by type`);
    assert.deepEqual(types.map((r) => r.type), [0, 1, 2]);
    const unmatched = await count(t, `select count(*) as n from ethereum_transaction e join contract_result r using (consensus_timestamp) where e.hash <> r.transaction_hash`);
    assert.equal(unmatched, 0);
    const logHash = await count(t, `select count(*) as n from contract_log l join contract_result r using (consensus_timestamp) where l.transaction_hash <> r.transaction_hash or l.transaction_index <> r.transaction_index`);
    assert.equal(logHash, 0);
  });

  test('contracts: bytecode file, history, deletion, admin keys, senders with and without EVM aliases', async () => {
    const token = await one<{ file_id: string; key: string; created: string }>(t,
      `select c.file_id, e.key, e.created_timestamp as created from contract c join entity e using (id) where id = $1`, [ID.token]);
    assert.equal(Number(token.file_id), ID.tokenFile);
    assert.equal(token.key.slice(0, 4), '1220');
    assert.equal(token.key.length, 68);
    const file = await t.db.query<{ transaction_type: number; file_data: string }>(
      `select transaction_type, file_data from file_data where entity_id = $1 and consensus_timestamp <= $2 order by consensus_timestamp`, [ID.tokenFile, token.created]);
    assert.equal(file[0]!.transaction_type, 17);
    assert.ok(file.length >= 2 && file.slice(1).every((r) => r.transaction_type === 16));
    const text = Buffer.from(file.map((r) => r.file_data).join(''), 'hex').toString('utf8');
    const runtime = await one<{ runtime_bytecode: string }>(t, `select runtime_bytecode from contract where id = $1`, [ID.token]);
    assert.ok(text.endsWith(runtime.runtime_bytecode), 'the file holds the init code as hex text');
    const history = await t.db.query<{ id: string }>(`select id from entity_history where type = 'CONTRACT' and id in ($1, $2) order by id`, [ID.token, ID.vault]);
    assert.deepEqual(history.map((r) => Number(r.id)), [ID.token, ID.vault]);
    const vault = await one<{ deleted: boolean; obtainer_id: string }>(t, `select deleted, obtainer_id from entity where id = $1`, [ID.vault]);
    assert.equal(vault.deleted, true);
    assert.equal(Number(vault.obtainer_id), ID.deployer);
    const senders = await t.db.query<{ alias: boolean }>(`select distinct e.evm_address is not null as alias from contract_result r join entity e on e.id = r.sender_id where r.transaction_nonce = 0`);
    assert.equal(senders.length, 2);
    const deployer = await one<{ evm_address: string }>(t, `select evm_address from entity where id = $1`, [ID.deployer]);
    assert.equal(deployer.evm_address, accountEvmAddress(ID.deployer).toString('hex'));
  });

  test('every example URL of the banner answers 200 with data (those of the routes the service has)', async (c) => {
    const app = appOn(t.db);
    const pending: string[] = [];
    try {
      for (const example of demoExamples(facts)) {
        assert.equal(endpointOf(example.path), example.endpoint, example.path);
        if (!served(example.endpoint)) {
          pending.push(example.path);
          continue;
        }
        const res = await get(app, example.path);
        assert.equal(res.statusCode, 200, `${example.path}: ${res.body.slice(0, 200)}`);
        const body = res.json();
        assertHasData(example.endpoint, body, example.path);
        if (example.endpoint === 'contract') assert.equal(body.contract_id, `0.0.${ID.token}`);
        if (example.endpoint === 'actions') assert.ok(body.actions.length > 1, example.path);
      }
    } finally {
      await app.close();
    }
    if (pending.length) c.diagnostic(`routes not served yet, data checked in SQL only: ${pending.join(' ')}`);
  });

  test('the data behind every example exists, whichever routes the service has', async () => {
    const examples = demoExamples(facts);
    assert.deepEqual(examples.map((e) => e.endpoint), ['contract', 'contract', 'results', 'results', 'logs', 'logs', 'contracts',
      'allResults', 'allLogs', 'resultByTimestamp', 'resultByTransaction', 'actions', 'state']);
    const path = (endpoint: Endpoint) => examples.find((e) => e.endpoint === endpoint)!.path;
    // the block: a 2 s record file holding several results
    const block = await one<{ start: string; end: string }>(t,
      `select consensus_start as start, consensus_end as end from record_file where index = $1`, [facts.busy_block]);
    assert.deepEqual([block.start, block.end], [facts.block_start, facts.block_end]);
    assert.equal(BigInt(block.end) - BigInt(block.start) < 2_000_000_000n, true);
    assert.ok((await count(t, `select count(*) as n from contract_result where consensus_timestamp between $1 and $2`, [block.start, block.end])) > 1);
    assert.ok(path('allResults').includes(`timestamp=gte:${block.start.slice(0, -9)}.${block.start.slice(-9)}`));
    // five minutes of Swap logs around a swap
    const swap = BigInt(facts.swap_ts!);
    const swaps = await count(t, `select count(*) as n from contract_log where topic0 = $1 and consensus_timestamp between $2 and $3`,
      [Buffer.from(TOPIC.Swap, 'hex'), swap - 120_000_000_000n, swap + 180_000_000_000n]);
    assert.ok(swaps >= 1);
    // that swap by router and timestamp: its involved contracts, its logs and storage changes
    const involved = await one<{ ids: string[] }>(t, `select contract_ids as ids from contract_transaction where consensus_timestamp = $1 and entity_id = $2`,
      [swap, ID.router]);
    for (const id of [ID.router, ID.pair, ID.token, ID.usd]) assert.ok(involved.ids.map(Number).includes(id), `${id} in ${involved.ids}`);
    assert.equal(await count(t, `select count(*) as n from contract_result where consensus_timestamp = $1 and contract_id = $2`, [swap, ID.router]), 1);
    assert.ok((await count(t, `select count(*) as n from contract_log where consensus_timestamp = $1`, [swap])) >= 4);
    assert.ok((await count(t, `select count(*) as n from contract_state_change where consensus_timestamp = $1`, [swap])) >= 4);
    // the Ethereum hash: a successful type 2 transaction with its result, Ethereum data and contract_transaction row
    const byHash = await one<{ ts: string; entity: string }>(t,
      `select consensus_timestamp as ts, entity_id as entity from contract_transaction_hash where hash = $1 and transaction_result = 22`,
      [Buffer.from(facts.eth_hash!, 'hex')]);
    assert.equal(await count(t, `select count(*) as n from ethereum_transaction e join transaction x using (consensus_timestamp, payer_account_id)
      where e.consensus_timestamp = $1 and e.type = 2`, [byHash.ts]), 1);
    assert.equal(await count(t, `select count(*) as n from contract_transaction where consensus_timestamp = $1 and entity_id = $2`, [byHash.ts, byHash.entity]), 1);
    assert.ok((await count(t, `select count(*) as n from contract_state_change where consensus_timestamp = $1`, [byHash.ts])) > 0);
    // the transaction id: exactly one transaction (no child shares it), with a trace of several actions
    const [, payer, seconds, nanos] = /^0\.0\.(\d+)-(\d+)-(\d{9})$/.exec(facts.swap_transaction_id!)!;
    const validStart = BigInt(seconds!) * 1_000_000_000n + BigInt(nanos!);
    const matches = await t.db.query<{ ts: string }>(`select consensus_timestamp as ts from transaction
      where payer_account_id = $1 and valid_start_ns = $2 and consensus_timestamp between $2 and $2::bigint + 2100000000000`, [payer, validStart]);
    assert.equal(matches.length, 1);
    assert.ok((await count(t, `select count(*) as n from contract_action where consensus_timestamp = $1 and payer_account_id = $2`, [matches[0]!.ts, payer])) >= 5);
    // the token's storage and the contract list
    assert.ok((await count(t, `select count(*) as n from contract_state where contract_id = $1`, [ID.token])) > 50);
    assert.ok((await count(t, `select count(*) as n from entity where type = 'CONTRACT'`)) > 25);
  });
});

describe('demo generator: whose data is it', () => {
  const state = (s: Partial<DatabaseState>): DatabaseState => ({ schema: 'ours', demo: null, tablesWithData: [], otherTables: 0, ...s });
  test('seed may write into empty databases, its own schema and its own demo data only', () => {
    assert.equal(ownsData(state({ schema: 'none' })), true);
    assert.equal(ownsData(state({ schema: 'none', otherTables: 3 })), false);
    assert.equal(ownsData(state({ schema: 'ours' })), true);
    assert.equal(ownsData(state({ schema: 'ours', tablesWithData: ['contract_result'] })), false);
    assert.equal(ownsData(state({ schema: 'foreign' })), false);
    assert.equal(ownsData(state({ schema: 'ours', tablesWithData: ['entity'], demo: { scale: 1 } as DatabaseState['demo'] })), true);
  });
});
