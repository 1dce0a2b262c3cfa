/**
 * JSON-RPC errors with the codes and messages of the Hiero JSON-RPC relay v0.69.3 (its
 * `predefined` errors and the server's own), so that a client sees the same error for the same
 * request, written as the relay writes each kind:
 * - 'method': an error a method raised: `{"code","message"}`, the message after `[Request ID: <id>] `;
 * - 'relay': one of the relay's errors the server answers itself: `{"code","message"}`;
 * - 'server': the JSON-RPC server's own (parse error, invalid request): `{"message","code"}`.
 */
export type ErrorKind = 'method' | 'relay' | 'server';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly kind: ErrorKind = 'method',
  ) {
    super(message);
  }
}

/** A duration as the relay words its 7 days: "7 days (604800 seconds)"; seconds alone when not whole days. */
function durationText(seconds: number): string {
  if (seconds % 86400 !== 0) return `${seconds} seconds`;
  const days = seconds / 86400;
  return `${days} day${days === 1 ? '' : 's'} (${seconds} seconds)`;
}

export const rpcErrors = {
  parse: () => new RpcError(-32700, 'Parse error', 'server'),
  invalidRequest: () => new RpcError(-32600, 'Invalid Request', 'server'),
  internal: (message = '') => new RpcError(-32603, message === '' ? 'Unknown error invoking RPC' : `Error invoking RPC: ${message}`),
  invalidParameter: (index: number | string, message: string) => new RpcError(-32602, `Invalid parameter ${index}: ${message}`),
  missingParameter: (index: number | string) => new RpcError(-32602, `Missing value for required parameter ${index}`),
  methodNotFound: (method: string) => new RpcError(-32601, `Method ${method} not found`),
  unsupportedMethod: () => new RpcError(-32601, 'Unsupported JSON-RPC method'),
  notYetImplemented: () => new RpcError(-32601, 'Not yet implemented'),
  /** A method the relay serves and this endpoint does not (it answers the logs read path only). */
  servedByRelay: (method: string) =>
    new RpcError(-32601, `Method ${method} is not served here: this endpoint answers the logs read path only; send it to the JSON-RPC relay`),
  missingFromBlock: () => new RpcError(-32011, 'Provided toBlock parameter without specifying fromBlock'),
  rangeTooLarge: (limit: number) => new RpcError(-32000, `Exceeded maximum block range: ${limit}`),
  /** The relay's TIMESTAMP_RANGE_TOO_LARGE (blocks as 0x-hex, timestamps as the mirror node's seconds.nanoseconds). */
  timestampRangeTooLarge: (limitSeconds: number, fromBlock: string, fromTimestamp: string, toBlock: string, toTimestamp: string) =>
    new RpcError(
      -32004,
      `The provided fromBlock and toBlock contain timestamps that exceed the maximum allowed duration of ${durationText(limitSeconds)}: fromBlock: ${fromBlock} (${fromTimestamp}), toBlock: ${toBlock} (${toTimestamp})`,
    ),
  invalidBlockRange: () => new RpcError(-39013, 'Invalid block range'),
  filterNotFound: () => new RpcError(-32001, 'Filter not found'),
  /** Not the relay's (it has no such limit): EIP-1474's -32005 "limit exceeded", which the relay uses for its own limits. */
  tooManyFilters: (max: number) =>
    new RpcError(-32005, `Filter limit exceeded: this client has ${max} filters installed; uninstall one (eth_uninstallFilter) or let one expire`),
  filterTableFull: (max: number) => new RpcError(-32005, `Filter limit exceeded: the server holds its maximum of ${max} filters; try again later`),
  latestBlock: () => new RpcError(-32607, 'Error encountered retrieving latest block'),
  maxSubscriptions: () => new RpcError(-32608, 'Exceeded maximum allowed subscriptions'),
  batchTooLarge: (amount: number, max: number) => new RpcError(-32203, `Batch request amount ${amount} exceeds max ${max}`, 'relay'),
  unavailable: () => new RpcError(-32603, 'Error invoking RPC: the database is unavailable, try again'),
};

/** The error object's JSON text, in the relay's key order for its kind (with the request id where the relay has it). */
export function errorJson(error: RpcError, requestId: string): string {
  if (error.kind === 'server') return `{"message":${JSON.stringify(error.message)},"code":${error.code}}`;
  const message = error.kind === 'method' ? `[Request ID: ${requestId}] ${error.message}` : error.message;
  return `{"code":${error.code},"message":${JSON.stringify(message)}}`;
}
