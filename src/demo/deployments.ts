import { BYTECODES, CAST, DEPLOYMENT, ID, T0, TOPIC, contractAddress, word } from './network.ts';
import { accountEvmAddress, bytes, strip } from './sql.ts';
import { TX_COLUMNS } from './tables.ts';

const tokenAddr = contractAddress(ID.token);
const usdAddr = contractAddress(ID.usd);
const pairAddr = contractAddress(ID.pair);
const factoryAddr = contractAddress(ID.factory);
const deployerAddr = accountEvmAddress(ID.deployer);

/** The hour-0 deployments, as explicit rows of the working tables. */
export function deployments(): string[] {
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
