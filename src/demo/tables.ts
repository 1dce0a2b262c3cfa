import { createHash } from 'node:crypto';
import { BYTECODES, CAST, ID, NAMED_ACCOUNTS, REVERT_REASON, ROLE, T0, TOPIC, type DemoSize, errorStringAbi } from './network.ts';
import { bytes, text } from './sql.ts';

/**
 * The generator's working tables (temporary, in pg_temp): event signatures, log templates, blooms,
 * bytecodes and revert reasons; the accounts and contracts (the cast and the generated ones); the
 * batch of transactions being generated (d_tx) and the running state carried across batches.
 */

/** 64 log blooms of 256 bytes with 9 to 18 bits set (address plus 2-5 topics). */
function blooms(): Buffer[] {
  return Array.from({ length: 64 }, (_, n) => {
    const b = Buffer.alloc(256);
    const digest = createHash('sha512').update(`cqs-demo:bloom:${n}`).digest();
    const bits = 9 + (n % 4) * 3;
    for (let i = 0; i < bits; i++) {
      const bit = digest.readUInt16BE(i * 2) & 2047;
      b[255 - (bit >> 3)]! |= 1 << (bit & 7);
    }
    return b;
  });
}

/** The columns of d_tx that every transaction row sets. */
export const TX_COLUMNS = `ts, blk, rid, nonce, parent_ts, tx_index, role, tpl, contract_id, c20, is_create, sender_id, s20, payer_id,
  ttype, eth_type, eth_nonce, result, n_logs, gas_limit, gas_consumed, amount, token_id, tin, tout, amt, amt2, crank,
  fparams, cresult, err, created_ids, h48, hash, valid_start`;

export function workingTables(size: DemoSize): string[] {
  const sigs = Object.entries(TOPIC).map(([name, hex], i) => `(${i + 1}, ${text(name)}, '\\x${hex}'::bytea)`);
  // log templates: one row per log of a call shape (tpl). em: emitter (0 the called contract, 1 token in,
  // 2 token out, 3 pair, 4 DMO, 5 dUSD); sig: TOPIC index (1-based, see above) or 0 for the contract's own events;
  // t1..t3: 0 none, 1 sender, 2 counterparty, 3 zero address, 4 pair, 5 router, 6 token id, 7 marketplace,
  // 8 a bytes32 key; dk (data): 0 none, 1 amt, 2 reserves, 3 swap amounts, 4 true, 5 custom words, 6 amt+amt2,
  // 7 amt2, 8 liquidity, 9 a per-log amount
  const s = (name: keyof typeof TOPIC) => Object.keys(TOPIC).indexOf(name) + 1;
  const tpl = [
    [1, 0, 0, s('Transfer'), 1, 2, 0, 1],
    [2, 0, 0, s('Approval'), 1, 5, 0, 1],
    [3, 0, 0, s('Transfer'), 2, 1, 0, 1],
    ...[0, 1, 2, 3, 4, 5].map((li) => [4, li, 0, s('Transfer'), 1, 2, 0, 9]),
    [5, 0, 1, s('Transfer'), 1, 4, 0, 1],
    [5, 1, 2, s('Transfer'), 4, 1, 0, 7],
    [5, 2, 3, s('Sync'), 0, 0, 0, 2],
    [5, 3, 3, s('Swap'), 5, 1, 0, 3],
    [6, 0, 4, s('Transfer'), 1, 4, 0, 1],
    [6, 1, 5, s('Transfer'), 1, 4, 0, 7],
    [6, 2, 3, s('Transfer'), 3, 1, 0, 8],
    [6, 3, 3, s('Sync'), 0, 0, 0, 2],
    [6, 4, 3, s('Mint'), 5, 0, 0, 6],
    [7, 0, 0, s('Sync'), 0, 0, 0, 2],
    [8, 0, 0, s('Transfer'), 3, 1, 6, 0],
    [9, 0, 0, s('Approval'), 1, 3, 6, 0],
    [9, 1, 0, s('Transfer'), 1, 2, 6, 0],
    [10, 0, 0, s('ApprovalForAll'), 1, 7, 0, 4],
    [11, 0, 0, 0, 1, 0, 0, 5],
    [11, 1, 0, 0, 8, 1, 0, 5],
    [11, 2, 0, 0, 0, 0, 0, 5],
    [11, 3, 0, 0, 6, 2, 0, 5],
    [12, 0, 0, s('Deposit'), 1, 0, 0, 1],
    [13, 0, 0, s('Withdrawal'), 1, 0, 0, 1],
  ];
  const reasons = Object.entries(REVERT_REASON).map(([role, msg]) => `(${role}, ${bytes(errorStringAbi(msg))})`);
  const named = NAMED_ACCOUNTS.map((a) => `(null::int, ${a.id}::bigint, ${a.ecdsa}, ${text(a.memo)})`);
  const cast = CAST.map((c) =>
    [
      c.id, 'null', c.role, { file: 1, initcode: 2, ethereum: 3, create2: 4 }[c.kind], bytes(c.evmAddress), bytes(c.key),
      text(c.memo), c.createdTimestamp, c.update?.timestamp ?? 'null', text(c.update?.memo ?? null), bytes(c.update?.key),
      c.deletion?.timestamp ?? 'null', c.deletion?.obtainer ?? 'null', c.bytecode, c.fileId ?? 'null',
      c.autoRenewAccount ?? 'null', c.maxAutomaticTokenAssociations, c.ethereumNonce,
    ].join(', '),
  );
  return [
    `create temp table d_sig (id int primary key, name text, topic bytea)`,
    `insert into d_sig values ${sigs.join(', ')}`,
    // the cold contracts' own events: 64 rare signatures, each contract using 4 of them
    `insert into d_sig select 100 + n, 'Event' || n, sha256(convert_to('cqs-demo-event-' || n, 'UTF8')) from generate_series(0, 63) n`,
    `create temp table d_tpl (tpl int, li int, em int, sig int, t1 int, t2 int, t3 int, dk int, primary key (tpl, li))`,
    `insert into d_tpl values ${tpl.map((r) => `(${r.join(', ')})`).join(', ')}`,
    `create temp table d_bloom (id int primary key, bloom bytea)`,
    `insert into d_bloom values ${blooms().map((b, i) => `(${i}, ${bytes(b)})`).join(', ')}`,
    `create temp table d_bc (id int primary key, runtime bytea, init bytea)`,
    `insert into d_bc values ${BYTECODES.map((b, i) => `(${i}, ${bytes(b.runtime)}, ${bytes(b.init)})`).join(', ')}`,
    `create temp table d_reason (role int primary key, reason bytea)`,
    `insert into d_reason values ${reasons.join(', ')}`,
    // accounts: users (rank 1 = busiest; ~70% ECDSA with an EVM address alias, the rest ED25519) and the named ones
    `create temp table d_acct as
     select rank, id, ecdsa, memo,
            case when ecdsa then substring(pg_temp.h(id, 21) from 1 for 20) end as evm,
            case when ecdsa then '\\x3a21'::bytea || set_byte('\\x02'::bytea, 0, 2 + (id % 2)::int) || pg_temp.h(id, 22)
                 else '\\x1220'::bytea || pg_temp.h(id, 23) end as key
     from (select r as rank, ${ID.userBase}::bigint + r as id,
                  r = 1 or (r > 2 and pg_temp.u(r, 20) < 0.7) as ecdsa, '' as memo
           from generate_series(1, ${size.accounts}) r
           union all values ${named.join(', ')}) a`,
    `alter table d_acct add column a20 bytea, add column topic bytea`,
    `update d_acct set a20 = coalesce(evm, pg_temp.lz(id)), topic = pg_temp.strip(coalesce(evm, pg_temp.lz(id)))`,
    `create unique index on d_acct (rank)`,
    // contracts: the cast, then the cold ones deployed before the window (25% from a bytecode file,
    // 35% with initcode, 40% by an Ethereum transaction with a 20-byte EVM address; 5% updated once)
    `create temp table d_con (id bigint primary key, rank int, role int, kind int, evm bytea, key bytea, memo text,
       created_ts bigint, upd_ts bigint, upd_memo text, upd_key bytea, del_ts bigint, obtainer bigint, bc int,
       file_id bigint, auto_renew bigint, max_assoc int, nonce bigint)`,
    `insert into d_con values ${cast.map((r) => `(${r})`).join(', ')}`,
    `insert into d_con
     select id, r, ${ROLE.cold}, kind, case when kind = 3 then substring(pg_temp.h(id, 33) from 1 for 20) end,
            case when pg_temp.u(id, 35) < 0.6 then '\\x1220'::bytea || pg_temp.h(id, 36) end,
            case when pg_temp.u(id, 37) < 0.3 then 'contract 0.0.' || id else '' end,
            created, upd, case when upd is not null then 'contract 0.0.' || id || ' (updated)' end,
            case when upd is not null then '\\x1220'::bytea || pg_temp.h(id, 38) end,
            null, null, 4 + (r % 4), case when kind = 1 then ${ID.coldFileBase} + r end,
            null, 0, 1
     from (select r, id, kind, created,
                  case when pg_temp.u(id, 39) < 0.05
                       then ${T0}::bigint - (1 + floor(pg_temp.u(id, 40) * 20)::bigint) * 86400000000000 - id * 4 - 2 end as upd
           from (select r, ${ID.coldBase}::bigint + r as id,
                        case when pg_temp.u(r, 30) < 0.25 then 1 when pg_temp.u(r, 30) < 0.6 then 2 else 3 end as kind,
                        ${T0}::bigint - (30 + floor(pg_temp.u(r, 31) * 400)::bigint) * 86400000000000
                          - floor(pg_temp.u(r, 32) * 86400)::bigint * 1000000000 - (${ID.coldBase}::bigint + r) * 4 - 1 as created
                 from generate_series(1, ${size.coldContracts}) r) x) y`,
    `alter table d_con add column a20 bytea, add column topic bytea`,
    `update d_con set a20 = coalesce(evm, pg_temp.lz(id)), topic = pg_temp.strip(coalesce(evm, pg_temp.lz(id)))`,
    `create unique index on d_con (rank)`,
    `create temp table d_tx (ts bigint primary key, blk bigint, rid bigint, nonce int, parent_ts bigint, tx_index int,
       role int, tpl int, contract_id bigint, c20 bytea, is_create boolean, sender_id bigint, s20 bytea, payer_id bigint,
       ttype int, eth_type int, eth_nonce bigint, result int, n_logs int, gas_limit bigint, gas_consumed bigint,
       amount bigint, token_id bigint, tin bigint, tout bigint, amt bigint, amt2 bigint, crank int,
       fparams bytea, cresult bytea, err text, created_ids bigint[], h48 bytea, hash bytea, valid_start bigint,
       cp_rank int, cp_topic bytea, cp20 bytea, s_topic bytea, s_ecdsa boolean)`,
    // running state across batches: Ethereum nonces per sender, NFT mints, facts for the example URLs
    `create temp table d_nonce (id bigint primary key, n bigint)`,
    `insert into d_nonce select id, case when rank is null then 0 else floor(pg_temp.u(id, 24) * 30)::bigint end
     from d_acct where ecdsa`,
    `create temp table d_state (mints bigint)`,
    `insert into d_state values (0)`,
    `create temp table d_nft (token_id bigint primary key, n bigint)`,
    `create temp table d_fact (key text primary key, value text, score bigint)`,
  ];
}
