import { HTS_SYSTEM_CONTRACT, ID, type DemoSize, contractAddress } from './network.ts';
import { bytes } from './sql.ts';

/**
 * The EVM call traces (contract_action, the sidecar records of the importer): a few actions per
 * top-level call, depth 0 to 2, numbered from 0 in call order. Each call shape (d_tx.tpl) has a
 * template of actions; a failed transaction keeps its depth-0 action (with the revert reason or the
 * error) and the reads made before it failed. Internal (child) results have no trace of their own:
 * they appear in their parent's trace as calls to the HTS system contract.
 */

const pairAddr = contractAddress(ID.pair);

/**
 * Action templates, one row per action of a call shape, in call order:
 *   shape: d_tx.tpl; 14 a contract creation, 15 the factory's createPair (create2)
 *   op (call_operation_type): 1 CALL, 4 STATICCALL, 5 CREATE, 6 CREATE2; ct (call_type): 1 CALL, 2 CREATE,
 *     3 PRECOMPILE, 4 SYSTEM
 *   caller: 0 the sender (an account), 1 the called contract, 2 the pair
 *   rcp (recipient): 1 the called contract, 2 token in, 3 token out, 4 the pair, 5 DMO, 6 dUSD, 7 the sender's
 *     account (recipient_account), 8 the HTS system contract, 9 another cold contract, 10 the ecrecover
 *     precompile 0.0.1, 11 an EVM address without an account (recipient_address), 12 the created contract
 *   inp / outp: input and output kind (see callTraces); val: 0 none, 1 the call's amount, 2 a withdrawal,
 *     3 a small payment
 *   cond: 0 always, 1 the call has a first internal result, 2 a second one, 3-5 a cold contract's optional
 *     nested call, ecrecover, payment
 *   keep: kept when the transaction fails
 */
const TEMPLATES: Array<[number, number, number, number, number, number, number, number, number, number, number, boolean]> = [
  // token and NFT calls without nested calls: one action
  ...[1, 2, 3, 4, 9, 10, 12].map((shape): [number, number, number, number, number, number, number, number, number, number, number, boolean] =>
    [shape, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true]),
  // router swap: reserves, token in to the pair, swap (the pair pays out and checks its balances), HTS calls
  [5, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [5, 1, 1, 4, 1, 1, 4, 1, 1, 0, 0, true], [5, 2, 1, 1, 1, 1, 2, 2, 2, 0, 0, false],
  [5, 3, 1, 1, 1, 1, 4, 3, 3, 0, 0, false], [5, 4, 2, 1, 1, 2, 3, 4, 2, 0, 0, false], [5, 5, 2, 4, 1, 2, 2, 5, 4, 0, 0, false],
  [5, 6, 2, 4, 1, 2, 3, 5, 4, 0, 0, false], [5, 7, 1, 1, 4, 1, 8, 8, 5, 0, 1, false], [5, 8, 1, 1, 4, 1, 8, 8, 5, 0, 2, false],
  // router add liquidity: reserves, both tokens to the pair, mint (the pair checks its balances)
  [6, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [6, 1, 1, 4, 1, 1, 4, 1, 1, 0, 0, true], [6, 2, 1, 1, 1, 1, 5, 2, 2, 0, 0, false],
  [6, 3, 1, 1, 1, 1, 6, 6, 2, 0, 0, false], [6, 4, 1, 1, 1, 1, 4, 7, 7, 0, 0, false], [6, 5, 2, 4, 1, 2, 5, 5, 4, 0, 0, false],
  [6, 6, 2, 4, 1, 2, 6, 5, 4, 0, 0, false],
  // pair sync: both balances
  [7, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [7, 1, 1, 4, 1, 1, 5, 5, 4, 0, 0, false], [7, 2, 1, 4, 1, 1, 6, 5, 4, 0, 0, false],
  // NFT mint: HTS calls
  [8, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [8, 1, 1, 1, 4, 1, 8, 8, 5, 0, 1, false], [8, 2, 1, 1, 4, 1, 8, 8, 5, 0, 2, false],
  // cold contracts: now and then a call into another contract, ecrecover, a payment to an address without an account
  [11, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [11, 1, 1, 1, 1, 1, 9, 10, 7, 0, 3, false], [11, 2, 1, 4, 3, 1, 10, 9, 6, 0, 4, false],
  [11, 3, 1, 1, 1, 1, 11, 11, 3, 3, 5, false],
  // vault withdrawal: HBAR back to the sender
  [13, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [13, 1, 1, 1, 1, 1, 7, 11, 3, 2, 0, false],
  // deployments: a creation; the factory's createPair creates the pair with create2
  [14, 0, 0, 5, 2, 0, 1, 0, 0, 1, 0, true],
  [15, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, true], [15, 1, 1, 6, 2, 1, 12, 12, 8, 0, 0, false],
];

/** The working table of the templates. */
export function actionTables(): string[] {
  return [
    `create temp table d_atpl (shape int, ai int, depth int, op int, ct int, caller int, rcp int, inp int, outp int,
       val int, cond int, keep boolean, primary key (shape, ai))`,
    `insert into d_atpl values ${TEMPLATES.map((r) => `(${r.join(', ')})`).join(', ')}`,
  ];
}

/** The trace of every top-level call of d_tx into contract_action. */
export function callTraces(size: DemoSize): string[] {
  const C = size.coldContracts;
  const pairCode = (column: 'init' | 'runtime') =>
    `(select b.${column} from d_con c join d_bc b on b.id = c.bc where c.id = ${ID.pair})`;
  return [
    `insert into contract_action (call_depth, call_operation_type, call_type, caller, caller_type, consensus_timestamp,
       gas, gas_used, index, input, payer_account_id, recipient_account, recipient_address, recipient_contract,
       result_data, result_data_type, value)
     select x.depth, x.op, x.ct,
            case x.caller when 0 then x.sender_id when 1 then x.contract_id else ${ID.pair} end,
            (case when x.caller = 0 then 'ACCOUNT' else 'CONTRACT' end)::entity_type,
            x.ts, x.gas,
            case when x.depth = 0 and x.result = 30 then x.gas
                 when x.depth = 0 then least(x.gas, greatest(x.gas_consumed - 21000, x.gas_consumed / 2))
                 else least(x.gas, (case x.inp when 1 then 2400 when 2 then 29000 when 3 then 62000 when 4 then 24000
                                              when 5 then 2600 when 6 then 29000 when 7 then 48000 when 8 then 9000
                                              when 9 then 3000 when 10 then 15000 when 11 then 0 else 1800000 end)
                                   + case when x.inp = 11 then 0 else pg_temp.hi(x.rid * 16 + x.ai, 100) % 2048 end) end,
            x.idx,
            case x.inp
              when 0 then x.fparams
              when 1 then '\\x0902f1ac'::bytea
              when 2 then '\\x23b872dd'::bytea || pg_temp.wa(x.s20) || pg_temp.wa(${bytes(pairAddr)}) || pg_temp.w(x.amt)
              when 3 then '\\x022c0d9f'::bytea || pg_temp.w(0) || pg_temp.w(x.amt2) || pg_temp.wa(x.s20) || pg_temp.w(128) || pg_temp.w(0)
              when 4 then '\\xa9059cbb'::bytea || pg_temp.wa(x.s20) || pg_temp.w(x.amt2)
              when 5 then '\\x70a08231'::bytea || pg_temp.wa(${bytes(pairAddr)})
              when 6 then '\\x23b872dd'::bytea || pg_temp.wa(x.s20) || pg_temp.wa(${bytes(pairAddr)}) || pg_temp.w(x.amt2)
              when 7 then '\\x6a627842'::bytea || pg_temp.wa(x.s20)
              when 8 then x.child_params
              when 9 then pg_temp.h(x.rid, 101) || pg_temp.w(27 + x.rid % 2) || pg_temp.h(x.rid, 102) || pg_temp.h(x.rid, 103)
              when 10 then substring(pg_temp.h(x.target, 64) from 1 for 4) || pg_temp.h(x.rid * 16 + x.ai, 104)
              when 11 then '\\x'::bytea
              else ${pairCode('init')} end,
            x.payer_id,
            case when x.rcp = 7 then x.sender_id end,
            case when x.rcp = 11 then substring(pg_temp.h(x.rid, 105) from 1 for 20) end,
            case x.rcp when 1 then x.contract_id when 2 then x.tin when 3 then x.tout when 4 then ${ID.pair}
                       when 5 then ${ID.token} when 6 then ${ID.usd} when 8 then ${HTS_SYSTEM_CONTRACT} when 9 then x.target when 10 then 1
                       when 12 then ${ID.pair} end,
            case when x.depth = 0 and x.result = 30 then convert_to('INSUFFICIENT_GAS', 'UTF8')
                 when x.depth = 0 and x.result = 33 then x.cresult
                 else case x.outp
                        when 0 then x.cresult
                        when 1 then pg_temp.w(1000000000000000000 + pg_temp.hi(x.rid, 53) * 100000000000)
                                    || pg_temp.w(1000000000000000000 + pg_temp.hi(x.rid, 54) * 100000000000)
                                    || pg_temp.w(x.ts / 1000000000 - 2)
                        when 2 then pg_temp.w(1)
                        when 3 then '\\x'::bytea
                        when 4 then pg_temp.w((1 + pg_temp.hi(x.rid * 16 + x.ai, 106)) * 1000000000000)
                        when 5 then pg_temp.w(22)
                        when 6 then pg_temp.wa(substring(pg_temp.h(x.rid, 107) from 1 for 20))
                        when 7 then pg_temp.h(x.rid * 16 + x.ai, 108)
                        else ${pairCode('runtime')} end end,
            case when x.depth = 0 and x.result = 30 then 13 when x.depth = 0 and x.result = 33 then 12 else 11 end,
            case x.val when 1 then x.amount when 2 then x.amt / 1000000 when 3 then 100000 + pg_temp.hi(x.rid, 109) else 0 end
     from (
       select t.*, p.ai, p.depth, p.op, p.ct, p.caller, p.rcp, p.inp, p.outp, p.val,
              (row_number() over (partition by t.ts order by p.ai) - 1)::int as idx,
              case p.cond when 1 then c1.fparams when 2 then c2.fparams end as child_params,
              ${ID.coldBase} + 1 + (t.crank * 7 + t.rid) % ${C} as target,
              case when p.depth = 0 then greatest(t.gas_limit - 21000, t.gas_limit / 2)
                   else greatest(t.gas_limit - 21000, t.gas_limit / 2) * (16 - p.ai) / 16
                        * (case p.depth when 1 then 63 else 3969 end) / (case p.depth when 1 then 64 else 4096 end) end as gas
       from d_tx t
       left join d_tx c1 on c1.ts = t.ts + 1 and c1.parent_ts = t.ts
       left join d_tx c2 on c2.ts = t.ts + 2 and c2.parent_ts = t.ts
       join d_atpl p on p.shape = case when t.is_create then 14 when t.tpl = 0 then 15 else t.tpl end
                    and (t.result = 22 or p.keep)
                    and case p.cond when 0 then true when 1 then c1.ts is not null when 2 then c2.ts is not null
                                    when 3 then pg_temp.u(t.rid, 110) < 0.4 when 4 then pg_temp.u(t.rid, 111) < 0.25
                                    else pg_temp.u(t.rid, 112) < 0.1 end
       where t.nonce = 0
     ) x`,
  ];
}
