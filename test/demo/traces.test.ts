/**
 * The demo network's rows for the transaction endpoints: transaction ids and hashes, the entities
 * involved in each transaction, call traces and storage. Shapes as the importer writes them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HTS_SYSTEM_CONTRACT, ID } from '../../src/demo/network.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';

describe('demo generator: transactions, traces and storage', () => {
  let t: TestDatabase;
  const count = async (sql: string, values: unknown[] = []) => Number((await t.db.query<{ n: string }>(sql, values))[0]!.n);

  before(async () => {
    t = await openTestDatabase('embedded');
    await seedDemo(t.db, { scale: 0.3 });
  });
  after(() => t?.close());

  test('transaction ids and hashes resolve: 48-byte hashes of every transaction, 32-byte hashes of Ethereum ones', async () => {
    // every contract result has its transaction (payer, valid start, nonce) and its contract_transaction_hash row
    assert.equal(await count(`select count(*) as n from contract_result r where not exists (select 1 from transaction x
      where x.consensus_timestamp = r.consensus_timestamp and x.payer_account_id = r.payer_account_id and x.nonce = r.transaction_nonce
        and x.valid_start_ns < x.consensus_timestamp and x.type in (7, 8, 50, 14, 37))`), 0);
    assert.equal(await count(`select count(*) as n from contract_result r where not exists (select 1 from contract_transaction_hash h
      where h.consensus_timestamp = r.consensus_timestamp and h.hash = r.transaction_hash and h.entity_id = r.contract_id)`), 0);
    assert.equal(await count(`select count(*) as n from contract_transaction_hash where length(hash) <> 32`), 0);
    // Ethereum transactions are found by their Ethereum hash, the others by the first 32 bytes of their Hedera hash
    assert.equal(await count(`select count(*) as n from contract_transaction_hash h join transaction x using (consensus_timestamp)
      where h.hash <> case when x.type = 50 then (select e.hash from ethereum_transaction e where e.consensus_timestamp = h.consensus_timestamp)
                           else substring(x.transaction_hash from 1 for 32) end`), 0);
    // transaction_hash: each transaction's 48-byte hash, plus the Ethereum hash; distribution_id = the first two bytes
    assert.equal(await count(`select count(*) as n from transaction x where not exists (select 1 from transaction_hash h
      where h.consensus_timestamp = x.consensus_timestamp and h.hash = x.transaction_hash and length(h.hash) = 48)`), 0);
    assert.equal(await count(`select count(*) as n from ethereum_transaction e where not exists (select 1 from transaction_hash h
      where h.consensus_timestamp = e.consensus_timestamp and h.hash = e.hash)`), 0);
    assert.equal(await count(`select count(*) as n from transaction_hash where length(hash) not in (32, 48)
      or distribution_id <> ((get_byte(hash, 0) << 8) + get_byte(hash, 1) - case when get_byte(hash, 0) >= 128 then 65536 else 0 end)`), 0);
    // Ethereum amounts in tinybars, as Java BigInteger bytes (zero is 00, never empty): the value is the result's amount
    assert.equal(await count(`select count(*) as n from ethereum_transaction e join contract_result r using (consensus_timestamp)
      where length(e.value) = 0 or length(e.value) > 8 or (length(e.value) > 1 and get_byte(e.value, 0) = 0 and get_byte(e.value, 1) < 128)
        or ('x' || lpad(encode(e.value, 'hex'), 16, '0'))::bit(64)::bigint <> r.amount`), 0);
    // a transaction id names one top-level transaction; its internal results share it with their own nonces
    assert.equal(await count(`select count(*) as n from (select 1 from transaction where nonce = 0
      group by payer_account_id, valid_start_ns having count(*) > 1) x`), 0);
    assert.equal(await count(`select count(*) as n from transaction c join transaction p on p.consensus_timestamp = c.parent_consensus_timestamp
      where c.nonce > 0 and (c.valid_start_ns <> p.valid_start_ns or c.payer_account_id <> p.payer_account_id)`), 0);
  });

  test('contract_transaction: a row per involved entity, listing every contract that ran, logged or changed storage', async () => {
    assert.equal(await count(`select count(*) as n from contract_result r where not exists (select 1 from contract_transaction c
      where c.consensus_timestamp = r.consensus_timestamp and c.entity_id = r.contract_id and r.contract_id = any(c.contract_ids))`), 0);
    for (const [table, column] of [['contract_log', 'contract_id'], ['contract_state_change', 'contract_id'], ['contract_result', 'payer_account_id'], ['contract_result', 'sender_id']]) {
      assert.equal(await count(`select count(*) as n from ${table} x where ${column} is not null and not exists (select 1 from contract_transaction c
        where c.consensus_timestamp = x.consensus_timestamp and c.entity_id = x.${column})`), 0, `${table}.${column}`);
    }
    assert.equal(await count(`select count(*) as n from contract_log l join contract_transaction c using (consensus_timestamp)
      where not (l.contract_id = any(c.contract_ids))`), 0);
    // one list per transaction, sorted, without accounts
    assert.equal(await count(`select count(*) as n from (select consensus_timestamp from contract_transaction
      group by 1 having count(distinct contract_ids) > 1 or count(distinct payer_account_id) > 1) x`), 0);
    assert.equal(await count(`select count(*) as n from contract_transaction c where contract_ids <> array(select unnest(c.contract_ids) order by 1)
      or exists (select 1 from entity e where e.id = any(c.contract_ids) and e.type <> 'CONTRACT' and e.id <> ${HTS_SYSTEM_CONTRACT})`), 0);
    // a router swap involves the router, the pair and both tokens
    assert.ok((await count(`select count(*) as n from contract_transaction where entity_id = ${ID.router}
      and contract_ids @> array[${ID.router}, ${ID.pair}, ${ID.token}, ${ID.usd}]::bigint[]`)) > 10);
  });

  test('call traces: every top-level call has actions numbered from 0, one at depth 0, nested to depth 2', async () => {
    assert.equal(await count(`select count(*) as n from contract_result r where transaction_nonce = 0 and not exists
      (select 1 from contract_action a where a.consensus_timestamp = r.consensus_timestamp and a.payer_account_id = r.payer_account_id)`), 0);
    assert.equal(await count(`select count(*) as n from contract_action a where not exists
      (select 1 from contract_result r where r.consensus_timestamp = a.consensus_timestamp and r.transaction_nonce = 0)`), 0);
    assert.equal(await count(`select count(*) as n from (select consensus_timestamp from contract_action group by 1
      having min(index) <> 0 or max(index) <> count(*) - 1 or count(*) filter (where call_depth = 0) <> 1) x`), 0);
    const depths = await t.db.query<{ d: number }>(`select distinct call_depth as d from contract_action order by 1`);
    assert.deepEqual(depths.map((r) => r.d), [0, 1, 2]);
    // the depth-0 action is the transaction: from its sender, to its contract, with its input and value
    assert.equal(await count(`select count(*) as n from contract_action a join contract_result r using (consensus_timestamp)
      where a.call_depth = 0 and (a.caller <> r.sender_id or a.caller_type <> 'ACCOUNT' or a.recipient_contract <> r.contract_id
        or a.input <> r.function_parameters or a.value <> r.amount)`), 0);
    // failures: the revert reason (12) or the error (13) on the depth-0 action; successes answer with output (11)
    const types = await t.db.query<{ result: number; type: number }>(`select distinct r.transaction_result as result, a.result_data_type as type
      from contract_action a join contract_result r using (consensus_timestamp) where a.call_depth = 0 order by 1, 2`);
    assert.deepEqual(types.map((r) => [r.result, r.type]), [[22, 11], [30, 13], [33, 12]]);
    // call kinds: CALL, STATICCALL, CREATE, CREATE2; call types CALL, CREATE, PRECOMPILE, SYSTEM (the HTS calls)
    const kinds = await t.db.query<{ op: number; type: number }>(`select distinct call_operation_type as op, call_type as type from contract_action order by 1, 2`);
    assert.deepEqual(kinds.map((r) => [r.op, r.type]), [[1, 1], [1, 4], [4, 1], [4, 3], [5, 2], [6, 2]]);
    assert.equal(await count(`select count(*) as n from contract_action where call_type = 4 and recipient_contract <> ${HTS_SYSTEM_CONTRACT}`), 0);
    // recipients: contracts, an account (HBAR sent back), EVM addresses without an account
    assert.ok((await count(`select count(*) as n from contract_action where recipient_account is not null`)) > 0);
    assert.ok((await count(`select count(*) as n from contract_action where recipient_address is not null and length(recipient_address) = 20`)) > 0);
    assert.equal(await count(`select count(*) as n from contract_action where gas_used > gas or gas <= 0 or caller is null`), 0);
  });

  test('storage: slots and values without leading zero bytes; each read shows the previous write; current state is the last one', async () => {
    assert.equal(await count(`select count(*) as n from contract_state_change where (length(slot) > 0 and get_byte(slot, 0) = 0)
      or (length(value_read) > 0 and get_byte(value_read, 0) = 0) or (length(value_written) > 0 and get_byte(value_written, 0) = 0)
      or length(slot) > 32 or length(value_read) > 32 or migration`), 0);
    assert.ok((await count(`select count(*) as n from contract_state_change where slot = '\\x'::bytea`)) > 0, 'slot 0 is stored empty');
    assert.ok((await count(`select count(*) as n from contract_state_change where value_written is null`)) > 0, 'reads');
    assert.ok((await count(`select count(*) as n from contract_state_change where value_written = '\\x'::bytea`)) > 0, 'zeros written');
    // a read after a write shows the written value
    assert.equal(await count(`select count(*) as n from (select value_read, max(consensus_timestamp) filter (where value_written is not null)
      over (partition by contract_id, slot order by consensus_timestamp rows between unbounded preceding and 1 preceding) as pw,
      contract_id, slot from contract_state_change) x
      where pw is not null and value_read <> (select value_written from contract_state_change w
        where w.contract_id = x.contract_id and w.slot = x.slot and w.consensus_timestamp = x.pw)`), 0);
    // a failed call only reads, and only its own contract's slots
    assert.equal(await count(`select count(*) as n from contract_state_change s join contract_result r using (consensus_timestamp)
      where r.transaction_result <> 22 and (s.value_written is not null or s.contract_id <> r.contract_id)`), 0);
    // contract_state: 32-byte slots, the last value written in the window, slots set before the window too
    assert.equal(await count(`select count(*) as n from contract_state where length(slot) <> 32 or modified_timestamp < created_timestamp`), 0);
    assert.equal(await count(`select count(*) as n from contract_state s
      cross join lateral (select value_written, consensus_timestamp from contract_state_change c
        where c.contract_id = s.contract_id and c.slot = ltrim(s.slot, '\\x00'::bytea) and c.value_written is not null
        order by consensus_timestamp desc limit 1) w
      where w.value_written <> s.value or w.consensus_timestamp <> s.modified_timestamp`), 0);
    assert.ok((await count(`select count(*) as n from contract_state s where not exists (select 1 from contract_state_change c
      where c.contract_id = s.contract_id and c.slot = ltrim(s.slot, '\\x00'::bytea))`)) > 0, 'slots of cold contracts untouched in the window');
    assert.ok((await count(`select count(*) as n from contract_state where contract_id = ${ID.token}`)) > 20);
  });
});
