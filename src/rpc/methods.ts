/**
 * The methods served at /rpc, and the answer for every other: a method of the relay's that this
 * endpoint does not serve names the relay; engine_* is unsupported, other debug_* and trace_* not
 * yet implemented, anything else not found (the relay's own errors).
 */
import type { Config } from '../config/config.ts';
import type { Db } from '../db/db.ts';
import { type MethodAnswer, jsonAnswer } from './answer.ts';
import { rpcErrors } from './errors.ts';
import { type FilterStore } from './filterStore.ts';
import { getFilterChanges, getFilterLogs, newBlockFilter, newFilter, uninstallFilter } from './filterMethods.ts';
import { logPages } from './logPages.ts';
import { latestNumber, logSearchOf } from './logSearch.ts';
import { quantity } from './logView.ts';
import { filterParam } from './params.ts';

export interface MethodContext {
  db: Db;
  config: Config;
  chainId: bigint;
  filters: FilterStore;
  /** The client's address: the peer's, or with server.trustProxy the forwarded one (Fastify's request.ip). */
  client: string;
}

type Method = (context: MethodContext, params: unknown) => Promise<MethodAnswer>;

async function getLogs({ db, config }: MethodContext, params: unknown): Promise<MethodAnswer> {
  const search = await logSearchOf(db, config, filterParam(params, config.rpc));
  return search === undefined ? { json: '[]' } : { pages: logPages(db, config, search) };
}

export const METHODS: ReadonlyMap<string, Method> = new Map<string, Method>([
  ['eth_chainId', async ({ chainId }) => jsonAnswer(quantity(chainId))],
  ['net_version', async ({ chainId }) => jsonAnswer(chainId.toString())],
  ['eth_blockNumber', async ({ db }) => jsonAnswer(quantity(await latestNumber(db)))],
  ['eth_getLogs', getLogs],
  ['eth_newFilter', newFilter],
  ['eth_newBlockFilter', newBlockFilter],
  ['eth_getFilterChanges', getFilterChanges],
  ['eth_getFilterLogs', getFilterLogs],
  ['eth_uninstallFilter', uninstallFilter],
]);

/** Every other method the relay v0.69.3 serves: answered with an error that names the relay. */
const RELAY_METHODS = new Set(
  [
    'eth_accounts eth_feeHistory eth_estimateGas eth_gasPrice eth_mining eth_newPendingTransactionFilter eth_submitWork eth_syncing',
    'eth_getUncleByBlockHashAndIndex eth_getUncleByBlockNumberAndIndex eth_getUncleCountByBlockHash eth_getUncleCountByBlockNumber',
    'eth_hashrate eth_getWork eth_submitHashrate eth_signTransaction eth_sign eth_sendTransaction eth_protocolVersion eth_coinbase',
    'eth_blobBaseFee eth_getStorageAt eth_getBalance eth_getCode eth_getBlockByHash eth_getBlockTransactionCountByHash',
    'eth_getBlockTransactionCountByNumber eth_getTransactionByBlockHashAndIndex eth_getTransactionByBlockNumberAndIndex',
    'eth_getBlockByNumber eth_getTransactionCount eth_sendRawTransaction eth_call eth_getTransactionByHash eth_getTransactionReceipt',
    'eth_maxPriorityFeePerGas eth_getBlockReceipts eth_getProof net_listening net_peerCount web3_clientVersion web3_sha3',
    'debug_traceTransaction debug_traceBlockByNumber',
  ]
    .join(' ')
    .split(' '),
);

/** The method's implementation, or the error the relay's dispatcher answers for a method it does not have. */
export function methodOf(name: unknown): Method {
  const method = typeof name === 'string' ? METHODS.get(name) : undefined;
  if (method !== undefined) return method;
  const text = String(name);
  if (RELAY_METHODS.has(text)) throw rpcErrors.servedByRelay(text);
  if (/^engine_/.test(text)) throw rpcErrors.unsupportedMethod();
  if (/^(?:trace_|debug_)/.test(text)) throw rpcErrors.notYetImplemented();
  throw rpcErrors.methodNotFound(text);
}
