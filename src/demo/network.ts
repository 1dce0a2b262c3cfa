import { createHash } from 'node:crypto';

/**
 * The demo network: fixed parameters, the named accounts and contracts ("the cast") and their
 * bytecodes. Everything here is a pure function of constants, so example URLs can be built without
 * reading the database; the bulk activity is generated in SQL (generator.ts) from the same seed.
 */

/** Bumped whenever the generated rows change for a given scale. */
export const GENERATOR_VERSION = 2;
/** Seed of every pseudo-random choice. */
export const SEED = 20250601;
/** Window start: 2025-06-01T00:00:00Z. Hour 0 holds the deployments, activity runs from hour 1. */
export const T0_SECONDS = 1748736000;
export const T0 = BigInt(T0_SECONDS) * 1_000_000_000n;
export const DAYS = 5;
export const MINUTES = DAYS * 1440;
/** Minute at which the generated activity starts (the first hour belongs to the deployments). */
export const ACTIVITY_START_MINUTE = 60;
/** Record files (blocks) every 2 s; block number (record_file.index) of the block starting at T0. */
export const BLOCK_NS = 2_000_000_000n;
export const FIRST_BLOCK = 80_000_000;
/** Top-level contract transactions at scale 1 (internal results and deployments come on top). */
export const RESULTS_PER_SCALE = 6000;
export const HTS_SYSTEM_CONTRACT = 359;

const NS_PER_S = 1_000_000_000n;
const at = (seconds: number, nanos = 3): bigint => T0 + BigInt(seconds) * NS_PER_S + BigInt(nanos);
const DAY = 86400;

export interface DemoSize {
  /** The seed of the pseudo-random activity (another seed, another network of the same cast). */
  seed: number;
  scale: number;
  /** Top-level generated transactions (expected). */
  transactions: number;
  accounts: number;
  coldContracts: number;
}

export function demoSize(scale: number, seed = SEED): DemoSize {
  return {
    scale,
    seed,
    transactions: Math.max(1, Math.round(RESULTS_PER_SCALE * scale)),
    accounts: 100 + Math.round(50 * scale),
    coldContracts: 20 + Math.round(20 * scale),
  };
}

/** Ids of the cast (shard 0, realm 0: the encoded id is the entity number). */
export const ID = {
  relay1: 1001,
  relay2: 1002,
  relay3: 1003,
  deployer: 1004,
  marketplace: 1005,
  tokenFile: 1501,
  token: 2001,
  usd: 2002,
  pair: 2003,
  router: 2004,
  nft: 2005,
  factory: 2006,
  vault: 2007,
  /** Users: 100000 + rank (rank 1 is the busiest). */
  userBase: 100000,
  /** Contracts deployed before the window, with a few calls each: 200000 + rank. */
  coldBase: 200000,
  /** Bytecode files of the cold contracts created from a file: 300000 + rank. */
  coldFileBase: 300000,
} as const;

/** Roles (the `role` column of the generator's working tables). */
export const ROLE = { token: 1, usd: 2, pair: 3, router: 4, nft: 5, factory: 6, vault: 7, cold: 8 } as const;

/** 20 opaque bytes derived from a label (an EVM address that is not a long-zero address). */
export function opaqueAddress(label: string): Buffer {
  return createHash('sha256').update(`cqs-demo:${SEED}:${label}`).digest().subarray(0, 20);
}

export function longZero(num: number | bigint): Buffer {
  const b = Buffer.alloc(20);
  b.writeBigUInt64BE(BigInt(num), 12);
  return b;
}

export function ed25519Key(label: string): Buffer {
  return Buffer.concat([Buffer.from('1220', 'hex'), createHash('sha256').update(`cqs-demo:key:${label}`).digest()]);
}

/** Real event signature topics (keccak-256 of the signature). */
export const TOPIC = {
  Transfer: 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  Approval: '8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  Swap: 'd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822',
  Sync: '1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1',
  Mint: '4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f',
  ApprovalForAll: '17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31',
  OwnershipTransferred: '8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0',
  PairCreated: '0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9',
  Deposit: 'e1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c',
  Withdrawal: '7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65',
} as const;

/** Revert reasons per role, as `Error(string)` ABI data (what call_result and error_message hold). */
export const REVERT_REASON: Record<number, string> = {
  [ROLE.token]: 'ERC20: transfer amount exceeds balance',
  [ROLE.usd]: 'ERC20: insufficient allowance',
  [ROLE.pair]: 'UniswapV2: LOCKED',
  [ROLE.router]: 'UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT',
  [ROLE.nft]: 'ERC721: caller is not token owner or approved',
  [ROLE.factory]: 'UniswapV2: PAIR_EXISTS',
  [ROLE.vault]: 'Vault: withdraw amount exceeds balance',
  [ROLE.cold]: 'Ownable: caller is not the owner',
};

export function errorStringAbi(message: string): Buffer {
  const text = Buffer.from(message, 'utf8');
  const padded = Buffer.alloc(Math.ceil(text.length / 32) * 32);
  text.copy(padded);
  return Buffer.concat([Buffer.from('08c379a0', 'hex'), word(32n), word(BigInt(text.length)), padded]);
}

/** A 32-byte ABI word holding an unsigned integer or (given bytes) a left-padded value. */
export function word(value: bigint | Buffer): Buffer {
  const w = Buffer.alloc(32);
  if (typeof value === 'bigint') {
    let v = value;
    for (let i = 31; i >= 0 && v > 0n; i--) {
      w[i] = Number(v & 0xffn);
      v >>= 8n;
    }
  } else {
    value.copy(w, 32 - value.length);
  }
  return w;
}

/**
 * Eight bytecodes (runtime and init code) of 1.5 to 5 KB, shaped like solc output: the usual
 * preamble, a function dispatcher, pseudo-random bodies, a metadata trailer.
 */
export interface Bytecode {
  runtime: Buffer;
  init: Buffer;
}

function stream(label: string, length: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  for (let i = 0; total < length; i++) {
    const chunk = createHash('sha256').update(`cqs-demo:bytecode:${label}:${i}`).digest();
    parts.push(chunk);
    total += chunk.length;
  }
  return Buffer.concat(parts).subarray(0, length);
}

export const BYTECODES: Bytecode[] = Array.from({ length: 8 }, (_, n) => {
  const bodyLength = 1500 + ((n * 1237) % 3500);
  const selectors = stream(`sel${n}`, 4 * (6 + n));
  const dispatcher = Buffer.concat(
    Array.from({ length: selectors.length / 4 }, (_, i) =>
      Buffer.concat([Buffer.from('8063', 'hex'), selectors.subarray(i * 4, i * 4 + 4), Buffer.from('14610', 'hex'), Buffer.from([0x40 + i])]),
    ),
  );
  const runtime = Buffer.concat([
    Buffer.from('608060405234801561001057600080fd5b50600436106100', 'hex'),
    dispatcher,
    stream(`body${n}`, bodyLength),
    Buffer.from('a2646970667358221220', 'hex'),
    stream(`meta${n}`, 32),
    Buffer.from('64736f6c63430008140033', 'hex'),
  ]);
  const init = Buffer.concat([
    Buffer.from('608060405234801561001057600080fd5b5060405161', 'hex'),
    stream(`ctor${n}`, 160 + n * 16),
    Buffer.from('6101e8806100206000396000f3fe', 'hex'),
    runtime,
  ]);
  return { runtime, init };
});

/** How a contract came to be (decides entity.evm_address, contract.file_id / initcode). */
export type CreationKind = 'file' | 'initcode' | 'ethereum' | 'create2';

export interface CastContract {
  id: number;
  role: number;
  name: string;
  kind: CreationKind;
  bytecode: number;
  /** Opaque 20-byte EVM address (Ethereum-created and create2 contracts). */
  evmAddress: Buffer | null;
  key: Buffer | null;
  memo: string;
  createdTimestamp: bigint;
  fileId: number | null;
  autoRenewAccount: number | null;
  maxAutomaticTokenAssociations: number;
  ethereumNonce: number;
  /** Update (memo and key rotation): the older version goes to entity_history. */
  update?: { timestamp: bigint; memo: string; key: Buffer | null };
  /** Deletion: entity.deleted = true from then on, the live version goes to entity_history. */
  deletion?: { timestamp: bigint; obtainer: number };
}

export const TOKEN_UPDATE_TIMESTAMP = at(2 * DAY + 12 * 3600, 250_000_003);
export const VAULT_DELETION_TIMESTAMP = at(2 * DAY + 3 * 3600, 500_000_003);

export const CAST: CastContract[] = [
  {
    id: ID.token, role: ROLE.token, name: 'DemoToken (DMO), ERC-20', kind: 'file', bytecode: 2, evmAddress: null,
    key: ed25519Key('token-v1'), memo: 'DemoToken (DMO)', createdTimestamp: at(120, 200_000_003), fileId: ID.tokenFile,
    autoRenewAccount: ID.deployer, maxAutomaticTokenAssociations: 0, ethereumNonce: 1,
    update: { timestamp: TOKEN_UPDATE_TIMESTAMP, memo: 'DemoToken (DMO) - admin key rotated', key: ed25519Key('token-v2') },
  },
  {
    id: ID.usd, role: ROLE.usd, name: 'Demo USD (dUSD), ERC-20', kind: 'initcode', bytecode: 2, evmAddress: null,
    key: ed25519Key('usd'), memo: 'Demo USD (dUSD)', createdTimestamp: at(180, 200_000_003), fileId: null,
    autoRenewAccount: ID.deployer, maxAutomaticTokenAssociations: 0, ethereumNonce: 1,
  },
  {
    id: ID.pair, role: ROLE.pair, name: 'DMO/dUSD pair (Uniswap V2), created with create2', kind: 'create2', bytecode: 1,
    evmAddress: opaqueAddress('pair'), key: Buffer.from('3200', 'hex'), memo: '', createdTimestamp: at(300, 300_000_003),
    fileId: null, autoRenewAccount: null, maxAutomaticTokenAssociations: 0, ethereumNonce: 1,
  },
  {
    id: ID.router, role: ROLE.router, name: 'Uniswap V2 router', kind: 'ethereum', bytecode: 3, evmAddress: opaqueAddress('router'),
    key: null, memo: '', createdTimestamp: at(360, 300_000_003), fileId: null, autoRenewAccount: null,
    maxAutomaticTokenAssociations: 0, ethereumNonce: 1,
  },
  {
    id: ID.nft, role: ROLE.nft, name: 'Demo Punks (DPUNK), ERC-721', kind: 'ethereum', bytecode: 0, evmAddress: opaqueAddress('nft'),
    key: null, memo: '', createdTimestamp: at(420, 300_000_003), fileId: null, autoRenewAccount: null,
    maxAutomaticTokenAssociations: -1, ethereumNonce: 1,
  },
  {
    id: ID.factory, role: ROLE.factory, name: 'Uniswap V2 factory', kind: 'initcode', bytecode: 4, evmAddress: null,
    key: ed25519Key('factory'), memo: 'Uniswap V2 factory', createdTimestamp: at(240, 200_000_003), fileId: null,
    autoRenewAccount: ID.deployer, maxAutomaticTokenAssociations: 0, ethereumNonce: 2,
  },
  {
    id: ID.vault, role: ROLE.vault, name: 'Legacy vault (deleted on day 3)', kind: 'initcode', bytecode: 5, evmAddress: null,
    key: ed25519Key('vault'), memo: 'legacy vault', createdTimestamp: T0 - 200n * 86400n * NS_PER_S + 77_000_000_003n, fileId: null,
    autoRenewAccount: null, maxAutomaticTokenAssociations: 0, ethereumNonce: 1,
    deletion: { timestamp: VAULT_DELETION_TIMESTAMP, obtainer: ID.deployer },
  },
];

export const castContract = (id: number): CastContract => CAST.find((c) => c.id === id)!;

/** The 20-byte address a contract is known by in the EVM (its create2/CREATE address, else long-zero). */
export function contractAddress(id: number): Buffer {
  const c = CAST.find((x) => x.id === id);
  return c?.evmAddress ?? longZero(id);
}

export interface NamedAccount {
  id: number;
  memo: string;
  /** ECDSA accounts have a 33-byte compressed public key and an EVM address alias. */
  ecdsa: boolean;
}

export const NAMED_ACCOUNTS: NamedAccount[] = [
  { id: ID.relay1, memo: 'JSON-RPC relay operator 1', ecdsa: false },
  { id: ID.relay2, memo: 'JSON-RPC relay operator 2', ecdsa: false },
  { id: ID.relay3, memo: 'JSON-RPC relay operator 3', ecdsa: false },
  { id: ID.deployer, memo: 'demo deployer', ecdsa: true },
  { id: ID.marketplace, memo: 'NFT marketplace operator', ecdsa: true },
];

/** Seconds and nanos from T0 of the deployment transactions in hour 0 (all end in ...3 ns: never an activity timestamp). */
export const DEPLOYMENT = {
  token: CAST[0]!.createdTimestamp,
  usd: CAST[1]!.createdTimestamp,
  factory: CAST[5]!.createdTimestamp,
  createPair: CAST[2]!.createdTimestamp,
  router: CAST[3]!.createdTimestamp,
  nft: CAST[4]!.createdTimestamp,
} as const;
