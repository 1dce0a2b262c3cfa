import { ID, ROLE, SEED, T0 } from './network.ts';

/**
 * Contract storage: the slots each top-level call reads and writes (contract_state_change, the
 * importer's sidecar records) and, at the end, every slot's current value (contract_state).
 *
 * A slot is named by a key: 0-255 is a fixed slot number, m * 2^40 + k is entry k of mapping m (k an
 * entity id, an NFT serial, or owner * 2^20 + spender); its 32-byte slot stands in for
 * keccak256(abi.encode(k, m)). As the importer stores them, slots and values come without leading
 * zero bytes (slot 0 and a zero value are empty), except contract_state.slot, which has 32 bytes. A value is a function of the contract, the slot and the timestamp that wrote it, so a read
 * shows what the previous write in the data left: the running table d_slot carries each slot's
 * first and last write across batches. Contracts deployed before the window had values already
 * (their fixed slots and 60% of the mapping entries they touch), written at a time between their
 * creation and the window.
 *
 * Mappings: 1 balances (ERC-20, the vault, the pair's LP tokens), 2 allowances, 3 NFT owners, 4 NFT
 * balances, 5 NFT approvals, 6 operator approvals, 7 a cold contract's own mapping, 8 the factory's pairs.
 */

/**
 * Storage templates, one row per slot a call shape (as in actions.ts) touches:
 *   em (contract): 0 the called contract, 1 token in, 2 token out, 3 the pair, 4 DMO, 5 dUSD, 6 the created contract
 *   sk (slot): below 100 a fixed slot number; 100 balances[sender], 101 balances[counterparty], 102 balances[pair],
 *     103 allowances[sender][router], 104 allowances[counterparty][sender], 105 owners[token id],
 *     106 NFT balances[sender], 107 NFT balances[counterparty], 108 approvals[token id],
 *     109 operators[sender][marketplace], 110 own mapping[sender], 111 pairs[pair]
 *   w: written (else read); a failed call only reads, and only the called contract's slots
 *   cond: 0 always, 1 half of the calls
 */
const TEMPLATES: Array<[number, number, number, number, boolean, number]> = [
  [1, 0, 0, 100, true, 0], [1, 1, 0, 101, true, 0],
  [2, 0, 0, 103, true, 0],
  [3, 0, 0, 104, true, 0], [3, 1, 0, 101, true, 0], [3, 2, 0, 100, true, 0],
  [4, 0, 0, 100, true, 0], [4, 1, 0, 2, false, 0],
  [5, 0, 0, 0, false, 0], [5, 1, 1, 100, true, 0], [5, 2, 1, 102, true, 0], [5, 3, 1, 103, true, 0], [5, 4, 2, 102, true, 0],
  [5, 5, 2, 100, true, 0], [5, 6, 3, 8, true, 0], [5, 7, 3, 9, true, 0], [5, 8, 3, 10, true, 0], [5, 9, 3, 12, false, 0],
  [6, 0, 0, 0, false, 0], [6, 1, 4, 100, true, 0], [6, 2, 4, 102, true, 0], [6, 3, 5, 100, true, 0], [6, 4, 5, 102, true, 0],
  [6, 5, 3, 8, true, 0], [6, 6, 3, 2, true, 0], [6, 7, 3, 100, true, 0], [6, 8, 3, 12, false, 0],
  [7, 0, 0, 8, true, 0], [7, 1, 0, 12, false, 0],
  [8, 0, 0, 105, true, 0], [8, 1, 0, 106, true, 0], [8, 2, 0, 7, true, 0],
  [9, 0, 0, 105, true, 0], [9, 1, 0, 106, true, 0], [9, 2, 0, 107, true, 0], [9, 3, 0, 108, true, 0],
  [10, 0, 0, 109, true, 0],
  [11, 0, 0, 110, true, 0], [11, 1, 0, 1, false, 0], [11, 2, 0, 0, false, 1],
  [12, 0, 0, 100, true, 0], [12, 1, 0, 2, true, 0],
  [13, 0, 0, 100, true, 0], [13, 1, 0, 2, true, 0],
  [14, 0, 0, 0, true, 0], [14, 1, 0, 1, true, 0], [14, 2, 0, 2, true, 0], [14, 3, 0, 3, true, 0], [14, 4, 0, 100, true, 0],
  [15, 0, 0, 3, true, 0], [15, 1, 0, 111, true, 0], [15, 2, 6, 6, true, 0], [15, 3, 6, 7, true, 0], [15, 4, 6, 5, true, 0],
];

const hash = (n: string, salt: number) => `pg_temp.h(${n}, ${salt})`;

/** The slot and value functions, the templates, the batch's accesses (d_sc) and the running slot table (d_slot). */
export function storageTables(seed: number = SEED): string[] {
  const v = 'c # (skey * 31) # ver';
  return [
    `create function pg_temp.slot32(skey bigint) returns bytea language sql immutable as
       $$ select case when skey < 256 then pg_temp.w(skey)
                      else sha256(int8send(skey & 1099511627775) || int4send((skey >> 40)::int) || int4send(${seed})) end $$`,
    `create function pg_temp.slot(skey bigint) returns bytea language sql immutable as
       $$ select ltrim(pg_temp.slot32(skey), '\\x00'::bytea) $$`,
    // the value slot skey of contract c holds from the write at ver on, by kind: addresses, amounts (allowances 30%
    // unlimited), NFT counts, flags, a counter, the pair's reserves with the block time on top, other words; without
    // leading zero bytes, as sidecars carry values
    `create function pg_temp.sval(c bigint, skey bigint, ver bigint) returns bytea language sql immutable as $$
       select ltrim(case
         when skey in (0, 5, 6) or skey >> 40 in (3, 5, 8) then substring(${hash(v, 120)} from 1 for 20)
         when skey = 2 or skey >> 40 in (1, 7) or (skey >> 40 = 2 and pg_temp.u(${v}, 121) >= 0.3)
           then substring(${hash(v, 122)} from 1 for 5 + (((c # skey # ver) & 7) % 6)::int)
         when skey >> 40 = 2 then decode(repeat('ff', 32), 'hex')
         when skey >> 40 = 4 then pg_temp.tint(1 + ((c # skey # ver) & 15))
         when skey = 12 or skey >> 40 = 6 then '\\x01'::bytea
         when skey = 7 then pg_temp.tint(1 + (ver / 1000000000) % 1000000)
         when skey = 8 then int4send(((ver / 1000000000) % 2147483648)::int) || substring(${hash('c # ver', 123)} from 5)
         else ${hash(v, 124)} end, '\\x00'::bytea) $$`,
    // as written: approvals are cleared by transfers, 6% of balances and 25% of allowances go to zero (empty)
    `create function pg_temp.wval(c bigint, skey bigint, ver bigint) returns bytea language sql immutable as $$
       select case when skey >> 40 = 5 or (skey >> 40 = 1 and pg_temp.u(${v}, 125) < 0.06)
                        or (skey >> 40 = 2 and pg_temp.u(${v}, 125) < 0.25) then '\\x'::bytea
                   else pg_temp.sval(c, skey, ver) end $$`,
    `create function pg_temp.nfixed(c bigint, role int) returns int language sql immutable as
       $$ select case when role = ${ROLE.vault} then 4 else 3 + (c % 6)::int end $$`,
    // did the slot hold a value before the window, and written when
    `create function pg_temp.pre(c bigint, skey bigint, created bigint, role int) returns boolean language sql immutable as
       $$ select created < ${T0} and case when skey < 256 then skey < pg_temp.nfixed(c, role)
                                          else pg_temp.u(c # skey, 126) < 0.6 end $$`,
    `create function pg_temp.m0(c bigint, skey bigint, created bigint) returns bigint language sql immutable as
       $$ select created + 1 + (hashint8extended(c # skey, ${seed}::bigint * 1000003 + 127) & 9223372036854775807)
                                 % greatest(${T0} - created - 2, 1) $$`,
    `create temp table d_stpl (shape int, si int, em int, sk int, w boolean, cond int, primary key (shape, si))`,
    `insert into d_stpl values ${TEMPLATES.map((r) => `(${r.join(', ')})`).join(', ')}`,
    `create temp table d_sc (ts bigint, cid bigint, skey bigint, w boolean, payer_id bigint, primary key (ts, cid, skey))`,
    `create temp table d_slot (cid bigint, skey bigint, first_w bigint, last_w bigint, primary key (cid, skey))`,
  ];
}

/** The storage reads and writes of the top-level calls of d_tx into contract_state_change; d_slot follows. */
export function stateChanges(): string[] {
  const mapping = (m: number, key: string) => `(${m}::bigint << 40) | ${key}`;
  const cp = `(${ID.userBase} + t.cp_rank)`;
  return [
    `truncate d_sc`,
    `insert into d_sc (ts, cid, skey, w, payer_id)
     select ts, cid, skey, bool_or(w), min(payer_id)
     from (select t.ts, t.payer_id, s.w and t.result = 22 as w,
                  case s.em when 0 then t.contract_id when 1 then t.tin when 2 then t.tout when 3 then ${ID.pair}
                            when 4 then ${ID.token} when 5 then ${ID.usd} else t.created_ids[1] end as cid,
                  case s.sk when 100 then ${mapping(1, 't.sender_id')} when 101 then ${mapping(1, cp)}
                            when 102 then ${mapping(1, String(ID.pair))}
                            when 103 then ${mapping(2, `(t.sender_id << 20) | ${ID.router}`)}
                            when 104 then ${mapping(2, `(${cp} << 20) | t.sender_id`)}
                            when 105 then ${mapping(3, 't.token_id')} when 106 then ${mapping(4, 't.sender_id')}
                            when 107 then ${mapping(4, cp)} when 108 then ${mapping(5, 't.token_id')}
                            when 109 then ${mapping(6, `(t.sender_id << 20) | ${ID.marketplace}`)}
                            when 110 then ${mapping(7, 't.sender_id')} when 111 then ${mapping(8, String(ID.pair))}
                            else s.sk end as skey
           from d_tx t
           join d_stpl s on s.shape = case when t.is_create then 14 when t.tpl = 0 then 15 else t.tpl end
                        and (t.result = 22 or s.em = 0)
                        and (s.cond = 0 or pg_temp.u(t.rid, 128) < 0.5)
           where t.nonce = 0) x
     where skey is not null
     group by ts, cid, skey`,
    // value_read: what the previous write left (in this batch, else in an earlier one), else the value from before
    // the window, else zero; value_written only for writes
    `insert into contract_state_change (consensus_timestamp, contract_id, payer_account_id, slot, value_read, value_written,
       migration)
     select x.ts, x.cid, x.payer_id, pg_temp.slot(x.skey),
            case when x.pw is not null then pg_temp.wval(x.cid, x.skey, x.pw)
                 when pg_temp.pre(x.cid, x.skey, c.created_ts, c.role) then pg_temp.sval(x.cid, x.skey, pg_temp.m0(x.cid, x.skey, c.created_ts))
                 else '\\x'::bytea end,
            case when x.w then pg_temp.wval(x.cid, x.skey, x.ts) end,
            false
     from (select s.*, coalesce(max(case when s.w then s.ts end) over (partition by s.cid, s.skey order by s.ts
                                                                           rows between unbounded preceding and 1 preceding),
                                d.last_w) as pw
           from d_sc s left join d_slot d on d.cid = s.cid and d.skey = s.skey) x
     join d_con c on c.id = x.cid`,
    `insert into d_slot (cid, skey, first_w, last_w)
     select cid, skey, min(ts) filter (where w), max(ts) filter (where w) from d_sc group by cid, skey
     on conflict (cid, skey) do update set first_w = coalesce(d_slot.first_w, excluded.first_w),
                                           last_w = coalesce(excluded.last_w, d_slot.last_w)`,
  ];
}

/**
 * contract_state: the last value of every slot written in the window or set before it, and the slots
 * set before the window that no call touched (fixed slots, and holders that never appear in the window).
 */
export function currentState(): string[] {
  return [
    `insert into contract_state (contract_id, created_timestamp, modified_timestamp, slot, value)
     select d.cid, case when x.pre then x.m0 else d.first_w end, coalesce(d.last_w, x.m0), pg_temp.slot32(d.skey),
            case when d.last_w is not null then pg_temp.wval(d.cid, d.skey, d.last_w) else pg_temp.sval(d.cid, d.skey, x.m0) end
     from d_slot d
     join d_con c on c.id = d.cid
     cross join lateral (select pg_temp.pre(d.cid, d.skey, c.created_ts, c.role) as pre,
                                pg_temp.m0(d.cid, d.skey, c.created_ts) as m0) x
     where d.last_w is not null or x.pre`,
    `insert into contract_state (contract_id, created_timestamp, modified_timestamp, slot, value)
     select c.id, m.m0, m.m0, pg_temp.slot32(k.skey), pg_temp.sval(c.id, k.skey, m.m0)
     from d_con c
     cross join lateral (select n::bigint as skey from generate_series(0, pg_temp.nfixed(c.id, c.role) - 1) n
                         union all
                         select (7::bigint << 40) | (549755813888 + j) from generate_series(1, 5 + (c.id % 20)::int) j) k
     cross join lateral (select pg_temp.m0(c.id, k.skey, c.created_ts) as m0) m
     where pg_temp.pre(c.id, k.skey, c.created_ts, c.role)
     on conflict (contract_id, slot) do nothing`,
  ];
}
