import { ACTIVITY_START_MINUTE, HTS_SYSTEM_CONTRACT, ID, MINUTES, ROLE, VAULT_DELETION_TIMESTAMP, type DemoSize, contractAddress } from './network.ts';
import { accountEvmAddress, bytes, strip } from './sql.ts';

const tokenAddr = contractAddress(ID.token);
const usdAddr = contractAddress(ID.usd);
const pairAddr = contractAddress(ID.pair);
const routerAddr = contractAddress(ID.router);
const marketAddr = accountEvmAddress(ID.marketplace);

/** Top-level contract transactions of minutes [m0, m1) and their internal results into d_tx; their logs into contract_log. */
export function activity(size: DemoSize, m0: number, m1: number): string[] {
  const activeMinutes = MINUTES - ACTIVITY_START_MINUTE;
  const base = size.transactions / activeMinutes;
  const A = size.accounts;
  const C = size.coldContracts;
  const u = (salt: number) => `pg_temp.u(rid, ${salt})`;
  return [
    `truncate d_tx`,
    // the transactions, then their call data (real selectors), return data and revert reasons
    `insert into d_tx (ts, blk, rid, nonce, parent_ts, tx_index, role, tpl, contract_id, c20, is_create, sender_id, s20,
                       s_topic, cp_rank, cp_topic, cp20, payer_id, ttype, eth_type, eth_nonce, result, n_logs, gas_limit,
                       gas_consumed, amount, token_id, tin, tout, amt, amt2, crank, h48, hash, valid_start, created_ids,
                       fparams, cresult, err)
     select t.*,
       case t.tpl
           when 1 then '\\xa9059cbb'::bytea || pg_temp.wa(t.cp20) || pg_temp.w(t.amt)
           when 2 then '\\x095ea7b3'::bytea || pg_temp.wa(${bytes(routerAddr)}) || pg_temp.w(t.amt)
           when 3 then '\\x23b872dd'::bytea || pg_temp.wa(t.cp20) || pg_temp.wa(t.s20) || pg_temp.w(t.amt)
           when 4 then '\\x88d695b2'::bytea || pg_temp.w(64) || pg_temp.w(128) || pg_temp.w(t.n_logs) || pg_temp.h(t.rid, 61) || pg_temp.h(t.rid, 62)
           when 5 then '\\x38ed1739'::bytea || pg_temp.w(t.amt) || pg_temp.w(t.amt2 / 100 * 95) || pg_temp.w(160) || pg_temp.wa(t.s20)
                       || pg_temp.w(t.ts / 1000000000 + 1200) || pg_temp.w(2) || pg_temp.wa(pg_temp.lz(t.tin)) || pg_temp.wa(pg_temp.lz(t.tout))
           when 6 then '\\xe8e33700'::bytea || pg_temp.wa(${bytes(tokenAddr)}) || pg_temp.wa(${bytes(usdAddr)}) || pg_temp.w(t.amt)
                       || pg_temp.w(t.amt2) || pg_temp.w(t.amt / 100 * 99) || pg_temp.w(t.amt2 / 100 * 99) || pg_temp.wa(t.s20)
                       || pg_temp.w(t.ts / 1000000000 + 1200)
           when 7 then '\\xfff6cae9'::bytea
           when 8 then '\\x40d097c3'::bytea || pg_temp.wa(t.s20)
           when 9 then '\\x23b872dd'::bytea || pg_temp.wa(t.s20) || pg_temp.wa(t.cp20) || pg_temp.w(t.token_id)
           when 10 then '\\xa22cb465'::bytea || pg_temp.wa(${bytes(marketAddr)}) || pg_temp.w(1)
           when 12 then '\\xd0e30db0'::bytea
           when 13 then '\\x2e1a7d4d'::bytea || pg_temp.w(t.amt)
           else substring(pg_temp.h(t.crank, 64) from 1 for 4) || pg_temp.h(t.rid, 65)
                || substring(pg_temp.h(t.rid, 66) from 1 for 32 * (t.rid % 3)::int) end as fparams,
         case
           when t.result = 33 then (select reason from d_reason where role = t.role)
           when t.result = 30 then '\\x'::bytea
           when t.tpl in (1, 2, 3) then pg_temp.w(1)
           when t.tpl = 5 then pg_temp.w(32) || pg_temp.w(2) || pg_temp.w(t.amt) || pg_temp.w(t.amt2)
           when t.tpl = 6 then pg_temp.w(t.amt) || pg_temp.w(t.amt2) || pg_temp.w(t.amt / 1000 * 707)
           when t.tpl = 8 then pg_temp.w(t.token_id)
           when t.tpl = 11 then pg_temp.w(t.rid % 1000)
           else '\\x'::bytea end as cresult,
         case when t.result = 33 then '0x' || encode((select reason from d_reason where role = t.role), 'hex')
                    when t.result = 30 then 'INSUFFICIENT_GAS' end as err
     from (
     with mins as (
       -- rate per minute: growth 0.8 -> 1.2 over the window, daily cycle 0.6 -> 1.4 (peak 14:00 UTC), 3% of minutes x5
       select m, ${base}::float8 * (0.8::float8 + 0.4::float8 * m / ${MINUTES})
                 * (1.4::float8 - 0.8::float8 * abs(((m % 1440) + 1320) % 1440 - 720) / 720)
                 * case when pg_temp.u(m, 1) < 0.03 then 5::float8 else 0.85::float8 / 0.97::float8 end as lam
       from generate_series(${m0}::bigint, ${m1 - 1}::bigint) m
     ), cnt as materialized (
       select m, (floor(lam) + (pg_temp.u(m, 2) < lam - floor(lam))::int)::int as k from mins
     ), raw as (
       -- the k transactions of a minute land in random 2 s blocks of that minute
       select m, j, m * 30 + floor(pg_temp.u(m * 8192 + j, 3) * 30)::bigint as blk
       from cnt join (select generate_series(1, (select max(k) from cnt)) as j) js on js.j <= cnt.k
     ), pos as materialized (
       select blk, r, blk * 4096 + r as rid, pg_temp.bs(blk) + 4 as b4, (pg_temp.be(blk) - 20 - pg_temp.bs(blk)) / kb as w
       from (select blk, row_number() over (partition by blk order by m, j) as r, count(*) over (partition by blk) as kb
             from raw) q
     ), tx as materialized (
       -- who calls what: 30% DMO, 5% dUSD, 25% router, 12% NFT, 2% pair, 3% vault (until deleted), 23% cold
       -- contracts (power law); senders and counterparties skewed to the low ranks
       select pos.*, b4 + ((r - 1) * w + floor(${u(4)} * 0.8 * w)::bigint) / 4 * 4 as ts,
              ((r - 1) * 5 + floor(${u(6)} * 3))::int as tx_index,
              1 + floor(${C} * ${u(11)} * ${u(11)} * ${u(11)})::int as crank,
              1 + floor(${A} * ${u(12)} * ${u(12)})::int as srank,
              1 + floor(${A} * ${u(13)} * ${u(13)})::int as cprank
       from pos
     ), roled as (
       select tx.*, case when ${u(10)} < 0.30 then ${ROLE.token} when ${u(10)} < 0.35 then ${ROLE.usd}
                         when ${u(10)} < 0.60 then ${ROLE.router} when ${u(10)} < 0.72 then ${ROLE.nft}
                         when ${u(10)} < 0.74 then ${ROLE.pair}
                         when ${u(10)} < 0.77 and ts < ${VAULT_DELETION_TIMESTAMP} then ${ROLE.vault} else ${ROLE.cold} end as role
       from tx
     ), shaped as materialized (
       -- call shape (log template), outcome (3% revert, 0.5% out of gas; router 7% / 1%), Ethereum or HAPI
       select r.*, s.id as sender_id, s.a20 as s20, s.topic as s_topic, cp.topic as cp_topic, cp.a20 as cp20,
              case r.role when ${ROLE.token} then case when ${u(7)} < 0.55 then 1 when ${u(7)} < 0.75 then 2 when ${u(7)} < 0.90 then 3 else 4 end
                          when ${ROLE.usd} then case when ${u(7)} < 0.6 then 1 when ${u(7)} < 0.85 then 2 else 3 end
                          when ${ROLE.router} then case when ${u(7)} < 0.78 then 5 else 6 end
                          when ${ROLE.nft} then case when ${u(7)} < 0.40 then 8 when ${u(7)} < 0.88 then 9 else 10 end
                          when ${ROLE.pair} then 7
                          when ${ROLE.vault} then case when ${u(7)} < 0.6 then 12 else 13 end
                          else 11 end as tpl,
              case when ${u(8)} < case when r.role = ${ROLE.router} then 0.07 else 0.03 end then 33
                   when ${u(8)} < case when r.role = ${ROLE.router} then 0.08 else 0.035 end then 30
                   else 22 end as result,
              s.ecdsa and ${u(9)} < 0.8 as eth,
              case r.role when ${ROLE.token} then ${ID.token} when ${ROLE.usd} then ${ID.usd} when ${ROLE.router} then ${ID.router}
                          when ${ROLE.nft} then ${ID.nft} when ${ROLE.pair} then ${ID.pair} when ${ROLE.vault} then ${ID.vault}
                          else ${ID.coldBase} + r.crank end as contract_id
       from roled r join d_acct s on s.rank = r.srank join d_acct cp on cp.rank = r.cprank
     ), planned as (
       select x.*, case when tpl in (1, 2, 3, 7, 8, 10, 12, 13) then 1 when tpl = 9 then 2
                        when tpl = 4 then 2 + floor(${u(14)} * 5)::int when tpl = 5 then 4 when tpl = 6 then 5
                        else 1 + floor(${u(14)} * ${u(14)} * 4)::int end as planned,
                   (case tpl when 1 then 34000 when 2 then 29000 when 3 then 41000 when 4 then 28000 + 12000 * 4
                             when 5 then 128000 when 6 then 185000 when 7 then 32000 when 8 then 96000 when 9 then 58000
                             when 10 then 46000 when 12 then 45000 when 13 then 38000 else 30000 + 40000 * (rid % 5) end
                    + floor(${u(22)} * 12000)::bigint + case when eth then 21000 else 0 end) as gas_base,
                   case when eth then (array[100000, 200000, 300000, 400000, 800000, 1500000, 3000000])[1 + floor(${u(23)} * 7)::int]
                        else 100000 + 50000 * floor(${u(23)} * 18)::bigint end as lim0
       from shaped x
     ), full_tx as materialized (
       select p.*, case when result = 30 then gas_base * 6 / 10 else greatest(lim0, gas_base + 5000) end as gas_limit,
              -- NFT mints number the collection on from 500 (1-500 were minted before the window)
              case when tpl = 8 and result = 22
                   then 500 + (select mints from d_state) + count(*) filter (where tpl = 8 and result = 22) over (order by ts)
                   when tpl = 9 then 1 + floor(500 * ${u(19)} * ${u(19)})::bigint end as token_id,
              case when eth then coalesce((select n from d_nonce where id = sender_id), 0)
                                 + count(*) filter (where eth) over (partition by sender_id order by ts) - 1 end as eth_nonce
       from planned p
     )
     select ts, blk, rid, 0 as nonce, null::bigint as parent_ts, tx_index, role, tpl, contract_id, k.con20 as c20,
            false as is_create, sender_id, s20, s_topic, cprank as cp_rank, cp_topic, cp20,
            case when not eth then sender_id when ${u(16)} < 0.7 then ${ID.relay1} when ${u(16)} < 0.9 then ${ID.relay2} else ${ID.relay3} end as payer_id,
            case when eth then 50 else 7 end as ttype,
            case when eth then case when ${u(15)} < 0.7 then 2 when ${u(15)} < 0.93 then 0 else 1 end end as eth_type,
            eth_nonce, result, case when result <> 22 then 0 else planned end as n_logs, gas_limit,
            case when result = 30 then gas_limit when result = 33 then gas_base * 7 / 10 else gas_base end as gas_consumed,
            case when tpl = 12 then 10000000 * (1 + floor(${u(17)} * 50)::bigint) else 0 end as amount,
            token_id,
            case when tpl not in (5, 6) then null when ${u(18)} < 0.5 then ${ID.token} else ${ID.usd} end as tin,
            case when tpl not in (5, 6) then null when ${u(18)} < 0.5 then ${ID.usd} else ${ID.token} end as tout,
            (1 + pg_temp.hi(rid, 50)) * 1000000000000 as amt, (1 + pg_temp.hi(rid, 51)) * 1000000000000 as amt2,
            case when role = ${ROLE.cold} then crank end as crank,
            pg_temp.h48(rid, 1) as h48,
            case when eth then pg_temp.h(rid, 2) else substring(pg_temp.h48(rid, 1) from 1 for 32) end as hash,
            ts - 1000000000 - floor(${u(21)} * 8e9)::bigint as valid_start, '{}'::bigint[] as created_ids
     from full_tx join (select id as con_id, a20 as con20 from d_con) k on k.con_id = contract_id
     ) t`,
    // internal (child) results: 12% of successful swaps and NFT mints call the HTS system contract (0.0.359)
    // once or twice: nonce 1-2, timestamp parent + nonce, sender = the calling contract
    `insert into d_tx (ts, blk, rid, nonce, parent_ts, tx_index, role, tpl, contract_id, c20, is_create, sender_id, s20,
                       payer_id, ttype, eth_type, eth_nonce, result, n_logs, gas_limit, gas_consumed, amount, crank,
                       fparams, cresult, err, created_ids, h48, hash, valid_start, amt, amt2)
     select t.ts + c, t.blk, t.rid + c * 1099511627776, c, t.ts, t.tx_index + c, 0, 0, ${HTS_SYSTEM_CONTRACT},
            pg_temp.lz(${HTS_SYSTEM_CONTRACT}), false, t.contract_id, t.c20, t.payer_id, case when t.tpl = 8 then 37 else 14 end,
            null, null, 22, 0, t.gas_limit, 9000 + floor(pg_temp.u(t.rid + c * 1099511627776, 22) * 20000)::bigint, 0, null,
            case when t.tpl = 8 then '\\x278e0b88'::bytea || pg_temp.wa(t.c20) || pg_temp.w(0) || pg_temp.w(96)
                 else '\\xeca36917'::bytea || pg_temp.wa(pg_temp.lz(t.tin)) || pg_temp.wa(t.s20) || pg_temp.wa(${bytes(pairAddr)})
                      || pg_temp.w(t.amt / 10000000000) end,
            pg_temp.w(22), null, '{}', pg_temp.h48(t.rid + c * 1099511627776, 1),
            substring(pg_temp.h48(t.rid + c * 1099511627776, 1) from 1 for 32), t.valid_start, 0, 0
     from d_tx t cross join lateral generate_series(1, 1 + (pg_temp.u(t.rid, 41) < 0.3)::int) c
     where t.nonce = 0 and t.result = 22 and t.tpl in (5, 8) and pg_temp.u(t.rid, 40) < 0.12`,
    // logs from the templates
    `insert into contract_log (consensus_timestamp, index, contract_id, topic0, topic1, topic2, topic3, data, bloom,
       root_contract_id, payer_account_id, transaction_hash, transaction_index)
     select t.ts, p.li,
            case p.em when 0 then t.contract_id when 1 then t.tin when 2 then t.tout when 3 then ${ID.pair}
                      when 4 then ${ID.token} else ${ID.usd} end,
            case when p.sig > 0 then (select topic from d_sig where id = p.sig)
                 else (select topic from d_sig where id = 100 + (t.crank * 7 + floor(4 * pg_temp.u(t.rid * 8 + p.li, 74) * pg_temp.u(t.rid * 8 + p.li, 74))::int) % 64) end,
            ${[1, 2, 3].map((n) => `case p.t${n} when 0 then null when 1 then t.s_topic when 2 then coalesce(a.topic, t.cp_topic)
                      when 3 then '\\x00'::bytea when 4 then ${bytes(strip(pairAddr))} when 5 then ${bytes(strip(routerAddr))}
                      when 6 then pg_temp.tint(coalesce(t.token_id, t.rid % 100000)) when 7 then ${bytes(strip(marketAddr))}
                      else pg_temp.h(t.crank, 73) end`).join(',\n            ')},
            case p.dk when 0 then '\\x'::bytea when 1 then pg_temp.w(t.amt) when 7 then pg_temp.w(t.amt2)
                      when 8 then pg_temp.w(t.amt / 1000 * 707)
                      when 9 then pg_temp.w((1 + pg_temp.hi(t.rid * 8 + p.li, 52)) * 1000000000000)
                      when 2 then pg_temp.w(1000000000000000000 + pg_temp.hi(t.rid, 53) * 100000000000)
                                  || pg_temp.w(1000000000000000000 + pg_temp.hi(t.rid, 54) * 100000000000)
                      when 3 then case when t.tin = ${ID.token} then pg_temp.w(t.amt) || pg_temp.w(0) || pg_temp.w(0) || pg_temp.w(t.amt2)
                                       else pg_temp.w(0) || pg_temp.w(t.amt) || pg_temp.w(t.amt2) || pg_temp.w(0) end
                      when 4 then pg_temp.w(1)
                      when 6 then pg_temp.w(t.amt) || pg_temp.w(t.amt2)
                      else pg_temp.h(t.rid * 8 + p.li, 72) || case when p.li % 2 = 0 then pg_temp.w(t.ts / 1000000000) else '\\x'::bytea end end,
            (select bloom from d_bloom where id = (t.rid * 8 + p.li) % 64),
            t.contract_id, t.payer_id, t.hash, t.tx_index
     from d_tx t
     join d_tpl p on p.tpl = t.tpl and p.li < t.n_logs
     left join d_acct a on t.tpl = 4 and p.t2 = 2 and a.rank = 1 + floor(${A} * pg_temp.u(t.rid * 8 + p.li, 45) * pg_temp.u(t.rid * 8 + p.li, 45))::int
     where t.nonce = 0`,
  ];
}
