import { FIRST_BLOCK, ID, T0, TOKEN_UPDATE_TIMESTAMP, TOPIC, VAULT_DELETION_TIMESTAMP } from './network.ts';

/**
 * The rows every batch of d_tx turns into (contract results, transactions, Ethereum transactions,
 * hashes, the entities involved, record files), the running state, and the rows written once at the end.
 */

/** Writes d_tx into the mirror node tables, adds the blocks, updates the running state. */
export function flush(): string[] {
  return [
    `insert into contract_result (function_parameters, gas_limit, function_result, gas_used, consensus_timestamp, amount,
       bloom, call_result, contract_id, created_contract_ids, error_message, payer_account_id, sender_id, failed_initcode,
       transaction_hash, transaction_index, transaction_result, transaction_nonce, gas_consumed)
     select t.fparams, t.gas_limit, null, greatest(t.gas_consumed, t.gas_limit * 8 / 10), t.ts, t.amount,
            case when t.n_logs > 0 then (select bloom from d_bloom where id = abs(t.rid) % 64) else '\\x'::bytea end,
            t.cresult, t.contract_id, t.created_ids, t.err, t.payer_id, t.sender_id, null,
            t.hash, t.tx_index, t.result, t.nonce, t.gas_consumed
     from d_tx t`,
    `insert into transaction (consensus_timestamp, type, result, payer_account_id, valid_start_ns, valid_duration_seconds,
       node_account_id, entity_id, initial_balance, max_fee, charged_tx_fee, memo, transaction_hash, scheduled, nonce,
       parent_consensus_timestamp, index)
     select t.ts, t.ttype, t.result, t.payer_id, t.valid_start, 120, 3 + abs(t.rid) % 28, t.contract_id, 0,
            case when t.nonce > 0 then null else 2000000000 end,
            case when t.nonce > 0 then 0 else 5000000 + floor(pg_temp.u(t.rid, 25) * 80000000)::bigint end,
            '\\x'::bytea, t.h48, false, t.nonce, t.parent_ts, t.tx_index
     from d_tx t`,
    `insert into ethereum_transaction (access_list, call_data_id, call_data, chain_id, consensus_timestamp, data, gas_limit,
       gas_price, hash, max_fee_per_gas, max_gas_allowance, max_priority_fee_per_gas, nonce, payer_account_id, recovery_id,
       signature_r, signature_s, signature_v, to_address, type, value)
     select case t.eth_type when 1 then '\\xf838f794'::bytea || t.c20 || '\\xe1a0'::bytea || pg_temp.h(t.rid, 5)
                            when 2 then '\\xc0'::bytea end,
            null, t.fparams, '\\x0127'::bytea, t.ts,
            case t.eth_type when 2 then '\\x02f9'::bytea when 1 then '\\x01f9'::bytea else '\\xf9'::bytea end
              || int2send(least(length(t.fparams) + 110, 32767)::smallint) || '\\x820127'::bytea || pg_temp.tint(t.eth_nonce)
              || t.fparams || pg_temp.h(t.rid, 3) || pg_temp.h(t.rid, 4),
            t.gas_limit,
            -- prices and value in tinybars (weibars / 10^10) as the importer of 0.129 stores them: 710 gwei = 71
            case when t.eth_type in (0, 1) then pg_temp.jbig(71) end,
            t.hash,
            case when t.eth_type = 2 then pg_temp.jbig((710000000000 + (abs(t.rid) % 1000) * 1000000000) / 10000000000) end,
            0,
            case when t.eth_type = 2 then pg_temp.jbig((abs(t.rid) % 3) * 1000000000 / 10000000000) end,
            t.eth_nonce, t.payer_id,
            case when t.eth_type in (1, 2) then (abs(t.rid) % 2)::smallint end,
            pg_temp.h(t.rid, 3), pg_temp.h(t.rid, 4),
            case when t.eth_type = 0 then pg_temp.tint(625 + abs(t.rid) % 2) end,
            case when t.is_create then null else t.c20 end,
            t.eth_type,
            pg_temp.jbig(t.amount)
     from d_tx t where t.eth_type is not null`,
    `insert into contract_transaction_hash (consensus_timestamp, hash, payer_account_id, entity_id, transaction_result)
     select ts, hash, payer_id, contract_id, result from d_tx`,
    // as the importer: the 48-byte hash of every transaction, and the 32-byte hash of every Ethereum transaction
    `insert into transaction_hash (consensus_timestamp, hash, payer_account_id, distribution_id)
     select ts, h, payer_id, pg_temp.dist(h)
     from (select ts, h48 as h, payer_id from d_tx union all select ts, hash, payer_id from d_tx where ttype = 50) x`,
    // record files for the blocks holding contract activity (the others would not be read by these endpoints)
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, hapi_version_major, hapi_version_minor, hapi_version_patch, version, file_hash, index, gas_used,
       logs_bloom, size, sidecar_count, node_id, software_version_major, software_version_minor, software_version_patch)
     select to_char(to_timestamp(pg_temp.bs(g.blk) / 1000000000) at time zone 'UTC', 'YYYY-MM-DD"T"HH24_MI_SS')
              || '.' || lpad((pg_temp.bs(g.blk) % 1000000000)::text, 9, '0') || 'Z.rcd.gz',
            pg_temp.be(g.blk) / 1000000000 + 2, pg_temp.be(g.blk) / 1000000000 + 3,
            pg_temp.bhash(g.blk, 90), pg_temp.bhash(g.blk - 1, 90), pg_temp.bs(g.blk), pg_temp.be(g.blk),
            5 * g.k + floor(pg_temp.u(g.blk, 5) * 40)::bigint, 0, 0, 62, 0, 6, pg_temp.bhash(g.blk, 91),
            ${FIRST_BLOCK} + g.blk, g.gas, case when g.logs > 0 then (select bloom from d_bloom where id = g.blk % 64) else '\\x'::bytea end,
            9000 + (5 * g.k) * 610 + (g.blk % 997)::int, 1, 3 + (g.blk % 28), 0, 62, 0
     from (select blk, count(*) filter (where nonce = 0) as k,
                  sum(greatest(gas_consumed, gas_limit * 8 / 10)) filter (where nonce = 0) as gas, sum(n_logs) as logs
           from d_tx group by blk) g`,
    `update d_state set mints = mints + (select count(*) from d_tx where tpl = 8 and result = 22)`,
    `insert into d_nonce (id, n) select sender_id, max(eth_nonce) + 1 from d_tx where eth_nonce is not null group by sender_id
     on conflict (id) do update set n = excluded.n`,
    `insert into d_nft (token_id, n) select token_id, count(*) from d_tx where tpl = 9 and result = 22 group by token_id
     on conflict (token_id) do update set n = d_nft.n + excluded.n`,
    // facts for the example URLs: the busiest router block, the latest failed swap
    `insert into d_fact (key, value, score)
     select 'busy_block', ${FIRST_BLOCK} + blk, count(*) * 100000000 - blk from d_tx
     where contract_id = ${ID.router} and nonce = 0 group by blk order by 3 desc limit 1
     on conflict (key) do update set value = excluded.value, score = excluded.score where excluded.score > d_fact.score`,
    `insert into d_fact (key, value, score)
     select 'failed_router_ts', ts, ts from d_tx where contract_id = ${ID.router} and nonce = 0 and result <> 22
     order by ts desc limit 1
     on conflict (key) do update set value = excluded.value, score = excluded.score where excluded.score > d_fact.score`,
    // the latest successful type 2 Ethereum swap, and the transaction id of the latest HAPI swap without internal results
    `insert into d_fact (key, value, score)
     select 'eth_hash', encode(hash, 'hex'), ts from d_tx
     where contract_id = ${ID.router} and nonce = 0 and result = 22 and tpl = 5 and eth_type = 2 order by ts desc limit 1
     on conflict (key) do update set value = excluded.value, score = excluded.score where excluded.score > d_fact.score`,
    `insert into d_fact (key, value, score)
     select 'swap_transaction_id',
            '0.0.' || payer_id || '-' || valid_start / 1000000000 || '-' || lpad((valid_start % 1000000000)::text, 9, '0'), ts
     from d_tx t
     where contract_id = ${ID.router} and nonce = 0 and result = 22 and tpl = 5 and eth_type is null
       and not exists (select 1 from d_tx c where c.parent_ts = t.ts)
     order by ts desc limit 1
     on conflict (key) do update set value = excluded.value, score = excluded.score where excluded.score > d_fact.score`,
  ];
}

/**
 * contract_transaction: one row per entity involved in a transaction of d_tx (its contracts, payer and
 * sender), each listing the contracts involved: the called one, the ones it created, and those that
 * logged or had storage changed. Runs after the batch's logs and state changes.
 */
export function involvedEntities(): string[] {
  return [
    `insert into contract_transaction (consensus_timestamp, entity_id, contract_ids, payer_account_id)
     with involved as (
       select ts, contract_id as id from d_tx
       union select ts, unnest(created_ids) from d_tx
       union select l.consensus_timestamp, l.contract_id from contract_log l
             where l.consensus_timestamp between (select min(ts) from d_tx) and (select max(ts) from d_tx)
       union select ts, cid from d_sc
     ), lists as (
       select ts, array_agg(id order by id) as ids from involved group by ts
     )
     select e.ts, e.id, l.ids, t.payer_id
     from (select ts, id from involved union select ts, payer_id from d_tx union select ts, sender_id from d_tx) e
     join lists l on l.ts = e.ts
     join d_tx t on t.ts = e.ts
     where e.id is not null`,
  ];
}

/** Administrative transactions (no contract results), the accounts' final nonces, the address book. */
export function finish(): string[] {
  const admin = [
    { ts: TOKEN_UPDATE_TIMESTAMP, type: 9, entity: ID.token, rid: -101 },
    { ts: VAULT_DELETION_TIMESTAMP, type: 22, entity: ID.vault, rid: -102 },
  ];
  return [
    `insert into transaction (consensus_timestamp, type, result, payer_account_id, valid_start_ns, valid_duration_seconds,
       node_account_id, entity_id, initial_balance, max_fee, charged_tx_fee, memo, transaction_hash, scheduled, nonce, index)
     values ${admin
       .map((a) => `(${a.ts}, ${a.type}, 22, ${ID.deployer}, ${a.ts - 2_000_000_000n}, 120, 3, ${a.entity}, 0, 200000000, 61800000,
                     '\\x'::bytea, pg_temp.h48(${a.rid}, 1), false, 0, 1)`)
       .join(', ')}`,
    `insert into transaction_hash (consensus_timestamp, hash, payer_account_id, distribution_id)
     select consensus_timestamp, transaction_hash, payer_account_id, pg_temp.dist(transaction_hash) from transaction
     where consensus_timestamp in (${admin.map((a) => a.ts).join(', ')})`,
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, hapi_version_major, hapi_version_minor, hapi_version_patch, version, file_hash, index, gas_used,
       logs_bloom, size, sidecar_count, node_id, software_version_major, software_version_minor, software_version_patch)
     select to_char(to_timestamp(pg_temp.bs(blk) / 1000000000) at time zone 'UTC', 'YYYY-MM-DD"T"HH24_MI_SS')
              || '.' || lpad((pg_temp.bs(blk) % 1000000000)::text, 9, '0') || 'Z.rcd.gz',
            pg_temp.be(blk) / 1000000000 + 2, pg_temp.be(blk) / 1000000000 + 3, pg_temp.bhash(blk, 90), pg_temp.bhash(blk - 1, 90),
            pg_temp.bs(blk), pg_temp.be(blk), 1 + floor(pg_temp.u(blk, 5) * 40)::bigint, 0, 0, 62, 0, 6, pg_temp.bhash(blk, 91),
            ${FIRST_BLOCK} + blk, 0, '\\x'::bytea, 9000 + (blk % 997)::int, 0, 3 + (blk % 28), 0, 62, 0
     from (select distinct blk from (values ${admin.map((a) => `((${a.ts} - ${T0}) / 2000000000)`).join(', ')}) v (blk)) b
     -- not "on conflict (consensus_end)": the v2 layout's key is (consensus_end, node_id)
     where not exists (select 1 from record_file r where r.consensus_end = pg_temp.be(blk))`,
    `update entity e set ethereum_nonce = n.n from d_nonce n where e.id = n.id`,
    `insert into address_book (start_consensus_timestamp, end_consensus_timestamp, file_id, node_count, file_data)
     values (${T0 - 30n * 86_400_000_000_000n}, null, 102, 0, '\\x'::bytea)`,
    `insert into d_fact (key, value, score)
     select 'nft_token', token_id, n from d_nft order by n desc, token_id limit 1`,
    // the busiest router block's bounds, and the Swap closest to its start
    `insert into d_fact (key, value, score)
     select k, v, 0 from record_file r
     cross join lateral (values ('block_start', r.consensus_start), ('block_end', r.consensus_end)) x (k, v)
     where r.index = (select value::bigint from d_fact where key = 'busy_block')`,
    `insert into d_fact (key, value, score)
     select 'swap_ts', consensus_timestamp, 0 from contract_log
     where contract_id = ${ID.pair} and topic0 = '\\x${TOPIC.Swap}'::bytea
     order by abs(consensus_timestamp - (select value::bigint from d_fact where key = 'block_start')), consensus_timestamp
     limit 1`,
  ];
}
