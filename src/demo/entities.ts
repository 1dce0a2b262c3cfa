import { MINUTES, T0 } from './network.ts';

/** Accounts, contracts (entity, entity_history, contract) and bytecode files (file_data), from d_acct and d_con. */
export function entities(): string[] {
  const accountCols = `id, num, realm, shard, type, created_timestamp, timestamp_range, memo, deleted, key, public_key,
    alias, evm_address, auto_renew_period, max_automatic_token_associations, receiver_sig_required, ethereum_nonce,
    balance, balance_timestamp, decline_reward, staked_node_id, stake_period_start`;
  const entityCols = `id, num, realm, shard, type, created_timestamp, timestamp_range, memo, deleted, key, evm_address,
    auto_renew_account_id, auto_renew_period, max_automatic_token_associations, ethereum_nonce, obtainer_id,
    permanent_removal, balance, balance_timestamp, decline_reward, staked_node_id, stake_period_start`;
  const tEnd = T0 + BigInt(MINUTES) * 60_000_000_000n;
  return [
    `insert into entity (${accountCols})
     select id, id, 0, 0, 'ACCOUNT', created, int8range(created, null), memo, false, key, encode(substring(key from 3), 'hex'),
            case when ecdsa then substring(key from 3) end, evm, 7776000, case when ecdsa then -1 else 0 end, false, 0,
            100000000 + floor(pg_temp.u(id, 26) * 1e12)::bigint, ${tEnd}, false, -1, -1
     from (select a.*, ${T0}::bigint - (40 + floor(pg_temp.u(id, 25) * 700)::bigint) * 86400000000000 - id * 4 - 1 as created
           from d_acct a) x`,
    `insert into entity (${entityCols})
     select id, id, 0, 0, 'CONTRACT', created_ts, int8range(coalesce(del_ts, upd_ts, created_ts), null),
            coalesce(upd_memo, memo), del_ts is not null, case when upd_ts is not null then upd_key else key end, evm,
            auto_renew, 7776000, max_assoc, nonce, obtainer, case when del_ts is not null then false end,
            case when pg_temp.u(id, 28) < 0.3 then floor(pg_temp.u(id, 29) * 1e10)::bigint else 0 end, ${tEnd}, false, -1, -1
     from d_con`,
    `insert into entity_history (${entityCols})
     select id, id, 0, 0, 'CONTRACT', created_ts, int8range(created_ts, coalesce(upd_ts, del_ts)), memo, false, key, evm,
            auto_renew, 7776000, max_assoc, nonce, null, null, 0, coalesce(upd_ts, del_ts), false, -1, -1
     from d_con where upd_ts is not null or del_ts is not null`,
    `insert into entity (id, num, realm, shard, type, created_timestamp, timestamp_range, memo, deleted, key, auto_renew_period, decline_reward)
     select file_id, file_id, 0, 0, 'FILE', created_ts - 60000000000, int8range(created_ts - 60000000000, null),
            '', false, coalesce(key, '\\x1220'::bytea || pg_temp.h(id, 27)), 7776000, false
     from d_con where file_id is not null`,
    `insert into contract (id, file_id, initcode, runtime_bytecode)
     select c.id, c.file_id, case when c.kind <> 1 then b.init end, b.runtime from d_con c join d_bc b on b.id = c.bc`,
    // a bytecode file holds the init code as hex text: FILECREATE with the first 4 KiB, then FILEAPPENDs, 2 s apart,
    // one minute before the contract was created from it
    `insert into file_data (file_data, consensus_timestamp, entity_id, transaction_type)
     select convert_to(substring(encode(b.init, 'hex') from ch * 4096 + 1 for 4096), 'UTF8'),
            c.created_ts - 60000000000 + ch * 2000000000::bigint, c.file_id, case when ch = 0 then 17 else 16 end
     from d_con c join d_bc b on b.id = c.bc
     cross join lateral generate_series(0, (2 * length(b.init) - 1) / 4096) ch
     where c.file_id is not null`,
  ];
}
