import { createHash } from 'node:crypto';
import {
  ACTIVITY_START_MINUTE,
  BYTECODES,
  CAST,
  DEPLOYMENT,
  FIRST_BLOCK,
  HTS_SYSTEM_CONTRACT,
  ID,
  MINUTES,
  NAMED_ACCOUNTS,
  REVERT_REASON,
  ROLE,
  SEED,
  T0,
  TOKEN_UPDATE_TIMESTAMP,
  TOPIC,
  VAULT_DELETION_TIMESTAMP,
  type DemoSize,
  contractAddress,
  errorStringAbi,
  word,
} from './network.ts';

/**
 * The demo network as SQL. Every statement is plain SQL run inside the caller's transaction:
 * pseudo-randomness comes from hashint8extended()/sha256() of row keys and SEED (never random()),
 * and only exact arithmetic is used on floats (no exp/ln/sin, whose last bits differ between C
 * libraries), so a given scale yields the same rows on PostgreSQL and on PGlite.
 *
 * Working tables are temporary (pg_temp) and vanish with the session; the tables written are
 * listed in WRITTEN_TABLES.
 */

/** Mirror node tables the generator fills (and truncates first). */
export const WRITTEN_TABLES = [
  'entity',
  'entity_history',
  'contract',
  'file_data',
  'record_file',
  'contract_result',
  'contract_log',
  'transaction',
  'ethereum_transaction',
  'contract_transaction_hash',
  'address_book',
] as const;

export interface Step {
  /** Shown by the progress bar. */
  label: string;
  statements: string[];
  /** Relative amount of work (for the progress bar). */
  weight: number;
}

const bytes = (b: Buffer | null | undefined): string => (b == null ? 'null' : `'\\x${b.toString('hex')}'::bytea`);
const text = (s: string | null): string => (s === null ? 'null' : `'${s.replace(/'/g, "''")}'`);
const strip = (b: Buffer): Buffer => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};

/** The EVM address alias of an ECDSA account, exactly as the SQL below derives it (pg_temp.h(id, 21)). */
export function accountEvmAddress(id: number): Buffer {
  const input = Buffer.alloc(16);
  input.writeBigInt64BE(BigInt(id), 0);
  input.writeInt32BE(21, 8);
  input.writeInt32BE(SEED, 12);
  return createHash('sha256').update(input).digest().subarray(0, 20);
}

const tokenAddr = contractAddress(ID.token);
const usdAddr = contractAddress(ID.usd);
const pairAddr = contractAddress(ID.pair);
const routerAddr = contractAddress(ID.router);
const factoryAddr = contractAddress(ID.factory);
const deployerAddr = accountEvmAddress(ID.deployer);
const marketAddr = accountEvmAddress(ID.marketplace);

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

function helpers(): string[] {
  return [
    `create function pg_temp.u(n bigint, salt int) returns float8 language sql immutable as
       $$ select ((hashint8extended(n, ${SEED}::bigint * 1000003 + salt) >> 11) & 9007199254740991)::float8 / 9007199254740992.0 $$`,
    `create function pg_temp.hi(n bigint, salt int) returns bigint language sql immutable as
       $$ select hashint8extended(n, ${SEED}::bigint * 1000003 + salt) & 1048575 $$`,
    `create function pg_temp.h(n bigint, salt int) returns bytea language sql immutable as
       $$ select sha256(int8send(n) || int4send(salt) || int4send(${SEED})) $$`,
    `create function pg_temp.h48(n bigint, salt int) returns bytea language sql immutable as
       $$ select sha384(int8send(n) || int4send(salt) || int4send(${SEED})) $$`,
    `create function pg_temp.w(v bigint) returns bytea language sql immutable as
       $$ select '\\x000000000000000000000000000000000000000000000000'::bytea || int8send(v) $$`,
    `create function pg_temp.wa(a bytea) returns bytea language sql immutable as
       $$ select '\\x000000000000000000000000'::bytea || a $$`,
    `create function pg_temp.lz(num bigint) returns bytea language sql immutable as
       $$ select '\\x000000000000000000000000'::bytea || int8send(num) $$`,
    // topics are stored as the importer stores them: leading zero bytes removed, at least one byte kept
    `create function pg_temp.strip(b bytea) returns bytea language sql immutable as
       $$ select coalesce(nullif(ltrim(b, '\\x00'::bytea), '\\x'::bytea), '\\x00'::bytea) $$`,
    `create function pg_temp.tint(v bigint) returns bytea language sql immutable as
       $$ select pg_temp.strip(int8send(v)) $$`,
    // block i (2 s slot i after T0): consensus start/end a few ms inside the slot, 96-hex hash
    `create function pg_temp.bs(i bigint) returns bigint language sql immutable as
       $$ select ${T0}::bigint + i * 2000000000 + (hashint8extended(i, ${SEED} + 1) & 1048575) * 4 $$`,
    `create function pg_temp.be(i bigint) returns bigint language sql immutable as
       $$ select ${T0}::bigint + (i + 1) * 2000000000 - 1 - (hashint8extended(i, ${SEED} + 2) & 1048575) * 4 $$`,
    `create function pg_temp.bhash(i bigint, salt int) returns text language sql immutable as
       $$ select encode(sha384(int8send(${FIRST_BLOCK} + i) || int4send(salt) || int4send(${SEED})), 'hex') $$`,
  ];
}

const TX_COLUMNS = `ts, blk, rid, nonce, parent_ts, tx_index, role, tpl, contract_id, c20, is_create, sender_id, s20, payer_id,
  ttype, eth_type, eth_nonce, result, n_logs, gas_limit, gas_consumed, amount, token_id, tin, tout, amt, amt2, crank,
  fparams, cresult, err, created_ids, h48, hash, valid_start`;

function workingTables(size: DemoSize): string[] {
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
    `create temp table d_fact (key text primary key, value bigint, score bigint)`,
  ];
}

function entities(): string[] {
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

/** The hour-0 deployments, as explicit rows of the working tables. */
function deployments(): string[] {
  const supply = 5_000_000_000_000_000_000n;
  const ctorToken = (name: string, symbol: string) =>
    Buffer.concat([word(96n), word(160n), word(supply), word(BigInt(name.length)), word(Buffer.from(name.padEnd(32, '\0'))),
      word(BigInt(symbol.length)), word(Buffer.from(symbol.padEnd(32, '\0')))]);
  const dep = strip(deployerAddr);
  const zero = Buffer.from([0]);
  interface Row {
    ts: bigint; rid: number; contract: number; create: boolean; ttype: number; eth: number | null; ethNonce: number | null;
    fparams: Buffer; cresult: Buffer; gasLimit: number; gasConsumed: number; created: number[]; logs: Array<{ em: number; topics: Buffer[]; data: Buffer }>;
  }
  const runtime = (id: number) => BYTECODES[CAST.find((c) => c.id === id)!.bytecode]!.runtime;
  const init = (id: number) => BYTECODES[CAST.find((c) => c.id === id)!.bytecode]!.init;
  const ownership = { em: 0, topics: [Buffer.from(TOPIC.OwnershipTransferred, 'hex'), zero, dep], data: Buffer.alloc(0) };
  const mint = { em: 0, topics: [Buffer.from(TOPIC.Transfer, 'hex'), zero, dep], data: word(supply) };
  const rows: Row[] = [
    { ts: DEPLOYMENT.token, rid: -1, contract: ID.token, create: true, ttype: 8, eth: null, ethNonce: null,
      fparams: ctorToken('DemoToken', 'DMO'), cresult: runtime(ID.token), gasLimit: 2_000_000, gasConsumed: 1_180_412,
      created: [ID.token], logs: [ownership, mint] },
    { ts: DEPLOYMENT.usd, rid: -2, contract: ID.usd, create: true, ttype: 8, eth: null, ethNonce: null,
      fparams: Buffer.concat([init(ID.usd), ctorToken('Demo USD', 'dUSD')]), cresult: runtime(ID.usd), gasLimit: 2_000_000,
      gasConsumed: 1_176_220, created: [ID.usd], logs: [ownership, mint] },
    { ts: DEPLOYMENT.factory, rid: -3, contract: ID.factory, create: true, ttype: 8, eth: null, ethNonce: null,
      fparams: Buffer.concat([init(ID.factory), word(deployerAddr)]), cresult: runtime(ID.factory), gasLimit: 4_000_000,
      gasConsumed: 2_412_877, created: [ID.factory], logs: [] },
    { ts: DEPLOYMENT.createPair, rid: -4, contract: ID.factory, create: false, ttype: 50, eth: 2, ethNonce: 0,
      fparams: Buffer.concat([Buffer.from('c9c65396', 'hex'), word(tokenAddr), word(usdAddr)]), cresult: word(pairAddr),
      gasLimit: 3_000_000, gasConsumed: 2_201_934, created: [ID.pair],
      logs: [{ em: 0, topics: [Buffer.from(TOPIC.PairCreated, 'hex'), strip(tokenAddr), strip(usdAddr)], data: Buffer.concat([word(pairAddr), word(1n)]) }] },
    { ts: DEPLOYMENT.router, rid: -5, contract: ID.router, create: true, ttype: 50, eth: 2, ethNonce: 1,
      fparams: Buffer.concat([init(ID.router), word(factoryAddr)]), cresult: runtime(ID.router), gasLimit: 5_000_000,
      gasConsumed: 3_987_102, created: [ID.router], logs: [] },
    { ts: DEPLOYMENT.nft, rid: -6, contract: ID.nft, create: true, ttype: 50, eth: 0, ethNonce: 2,
      fparams: init(ID.nft), cresult: runtime(ID.nft), gasLimit: 3_000_000, gasConsumed: 2_050_118, created: [ID.nft],
      logs: [ownership] },
  ];
  const role = (id: number) => CAST.find((c) => c.id === id)!.role;
  const txValues = rows.map((r) => {
    const payer = r.eth === null ? ID.deployer : ID.relay1;
    return `(${r.ts}, (${r.ts} - ${T0}) / 2000000000, ${r.rid}, 0, null, ${4 + (-r.rid) * 3}, ${role(r.contract)}, 0, ${r.contract},
      ${bytes(contractAddress(r.contract))}, ${r.create}, ${ID.deployer}, ${bytes(deployerAddr)}, ${payer}, ${r.ttype},
      ${r.eth ?? 'null'}, ${r.ethNonce ?? 'null'}, 22, ${r.logs.length}, ${r.gasLimit}, ${r.gasConsumed}, 0, null, null, null,
      0, 0, null, ${bytes(r.fparams)}, ${bytes(r.cresult)}, null, '{${r.created.join(',')}}', pg_temp.h48(${r.rid}, 1),
      ${r.eth === null ? `substring(pg_temp.h48(${r.rid}, 1) from 1 for 32)` : `pg_temp.h(${r.rid}, 2)`},
      ${r.ts} - 3000000000, null, null, null, null)`;
  });
  const logValues = rows.flatMap((r) =>
    r.logs.map((l, li) => {
      const t = [...l.topics, null, null, null, null];
      return `(${r.ts}, ${li}, ${r.contract}, ${bytes(t[0])}, ${bytes(t[1])}, ${bytes(t[2])}, ${bytes(t[3])}, ${bytes(l.data)},
        (select bloom from d_bloom where id = ${(-r.rid * 8 + li) % 64}), ${r.contract}, ${r.eth === null ? ID.deployer : ID.relay1},
        ${r.eth === null ? `substring(pg_temp.h48(${r.rid}, 1) from 1 for 32)` : `pg_temp.h(${r.rid}, 2)`}, ${4 + -r.rid * 3})`;
    }),
  );
  return [
    `truncate d_tx`,
    `insert into d_tx (${TX_COLUMNS}, cp_rank, cp_topic, cp20, s_topic) values ${txValues.join(',\n')}`,
    `insert into contract_log (consensus_timestamp, index, contract_id, topic0, topic1, topic2, topic3, data, bloom,
       root_contract_id, payer_account_id, transaction_hash, transaction_index) values ${logValues.join(',\n')}`,
  ];
}

/** Top-level contract transactions of minutes [m0, m1) and their internal results into d_tx; their logs into contract_log. */
function activity(size: DemoSize, m0: number, m1: number): string[] {
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

/** Writes d_tx into the mirror node tables, adds the blocks, updates the running state. */
function flush(): string[] {
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
            case when t.eth_type in (0, 1) then pg_temp.tint(710000000000) end,
            t.hash,
            case when t.eth_type = 2 then pg_temp.tint(710000000000 + (abs(t.rid) % 1000) * 1000000000) end,
            0,
            case when t.eth_type = 2 then pg_temp.tint((abs(t.rid) % 3) * 1000000000) end,
            t.eth_nonce, t.payer_id,
            case when t.eth_type in (1, 2) then (abs(t.rid) % 2)::smallint end,
            pg_temp.h(t.rid, 3), pg_temp.h(t.rid, 4),
            case when t.eth_type = 0 then pg_temp.tint(625 + abs(t.rid) % 2) end,
            case when t.is_create then null else t.c20 end,
            t.eth_type,
            case when t.amount > 0 then pg_temp.tint(t.amount * 10000000000) else '\\x'::bytea end
     from d_tx t where t.eth_type is not null`,
    `insert into contract_transaction_hash (consensus_timestamp, hash, payer_account_id, entity_id, transaction_result)
     select ts, hash, payer_id, contract_id, result from d_tx`,
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
  ];
}

/** Administrative transactions (no contract results), the accounts' final nonces, the address book. */
function finish(): string[] {
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
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, hapi_version_major, hapi_version_minor, hapi_version_patch, version, file_hash, index, gas_used,
       logs_bloom, size, sidecar_count, node_id, software_version_major, software_version_minor, software_version_patch)
     select to_char(to_timestamp(pg_temp.bs(blk) / 1000000000) at time zone 'UTC', 'YYYY-MM-DD"T"HH24_MI_SS')
              || '.' || lpad((pg_temp.bs(blk) % 1000000000)::text, 9, '0') || 'Z.rcd.gz',
            pg_temp.be(blk) / 1000000000 + 2, pg_temp.be(blk) / 1000000000 + 3, pg_temp.bhash(blk, 90), pg_temp.bhash(blk - 1, 90),
            pg_temp.bs(blk), pg_temp.be(blk), 1 + floor(pg_temp.u(blk, 5) * 40)::bigint, 0, 0, 62, 0, 6, pg_temp.bhash(blk, 91),
            ${FIRST_BLOCK} + blk, 0, '\\x'::bytea, 9000 + (blk % 997)::int, 0, 3 + (blk % 28), 0, 62, 0
     from (values ${admin.map((a) => `((${a.ts} - ${T0}) / 2000000000)`).join(', ')}) b (blk)
     on conflict (consensus_end) do nothing`,
    `update entity e set ethereum_nonce = n.n from d_nonce n where e.id = n.id`,
    `insert into address_book (start_consensus_timestamp, end_consensus_timestamp, file_id, node_count, file_data)
     values (${T0 - 30n * 86_400_000_000_000n}, null, 102, 0, '\\x'::bytea)`,
    `insert into d_fact (key, value, score)
     select 'nft_token', token_id, n from d_nft order by n desc, token_id limit 1`,
  ];
}

/** The whole generation as steps; batches of activity hold about 10,000 transactions each. */
export function generationSteps(size: DemoSize): Step[] {
  const activeMinutes = MINUTES - ACTIVITY_START_MINUTE;
  const perMinute = size.transactions / activeMinutes;
  const minutesPerBatch = Math.min(activeMinutes, Math.max(60, Math.floor(10_000 / perMinute / 60) * 60));
  const steps: Step[] = [
    { label: 'accounts and contracts', statements: [...helpers(), ...workingTables(size), ...entities()], weight: 1 + size.coldContracts / 2000 },
    { label: 'deployments', statements: [...deployments(), ...flush()], weight: 0.2 },
  ];
  for (let m = ACTIVITY_START_MINUTE; m < MINUTES; m += minutesPerBatch) {
    const end = Math.min(MINUTES, m + minutesPerBatch);
    const day = Math.floor(m / 1440) + 1;
    steps.push({ label: `day ${day} ${String(Math.floor((m % 1440) / 60)).padStart(2, '0')}:00`, statements: [...activity(size, m, end), ...flush()], weight: ((end - m) * perMinute) / 4000 });
  }
  steps.push({ label: 'finishing', statements: finish(), weight: 0.2 });
  return steps;
}

