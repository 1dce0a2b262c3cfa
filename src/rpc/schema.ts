/**
 * The OpenAPI documentation of `POST /rpc` (documentation only: http.ts reads and checks the body
 * itself, with the relay's codes and messages). The WebSocket on the same path speaks the same
 * JSON-RPC messages plus eth_subscribe / eth_unsubscribe; OpenAPI has no form for it, so the
 * description names it.
 */
import type { JsonSchema } from '../http/docs/schema.ts';

const request: JsonSchema = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'number', 'null'] },
    method: {
      type: 'string',
      examples: ['eth_getLogs'],
      description:
        'eth_chainId, net_version, eth_blockNumber, eth_getLogs, eth_newFilter, eth_newBlockFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter; over the WebSocket also eth_subscribe and eth_unsubscribe (logs, newHeads). Other methods of the relay answer -32601 naming the relay.',
    },
    params: { type: 'array', examples: [[{ fromBlock: '0x1', toBlock: 'latest', address: '0x0000000000000000000000000000000000000408', topics: [null] }]] },
  },
};

const answer: JsonSchema = {
  type: 'object',
  description: '`result` or `error`, then `jsonrpc` and `id`, in that order',
  properties: {
    result: { description: 'the method\'s result; for eth_getLogs an array of logs (address, blockHash, blockNumber, data, logIndex, removed, topics, transactionHash, transactionIndex)' },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'number', 'null'] },
  },
};

const json = (schema: JsonSchema) => ({ content: { 'application/json': { schema } } });

export const RPC_SCHEMA = {
  tags: ['json-rpc'],
  operationId: 'postJsonRpc',
  summary: 'JSON-RPC 2.0: eth_getLogs, filters, chain id and block number',
  description:
    'One request or a batch (an array of 1 to rpc.maxBatchSize). The same path upgrades to a WebSocket for eth_subscribe (logs, newHeads). Limits: rpc.maxBodyBytes, rpc.maxJsonDepth, rpc.maxAddresses and rpc.maxTopicValues per filter (at most 4 topics), rpc.blockRangeLimit, rpc.maxFiltersPerClient (docs/configuration.md); differences from the relay: docs/compatibility.md. Counted in the limit of requests in flight: 503 when shed.',
  body: { oneOf: [request, { type: 'array', items: request }] },
  response: {
    200: { description: 'an answer, a batch of answers, or a parse error', ...json({ oneOf: [answer, { type: 'array', items: answer }] }) },
    400: { description: 'a single request\'s error (invalid params, an unserved method; an empty batch or JSON that is no request: -32600)', ...json(answer) },
    413: { description: 'a body over rpc.maxBodyBytes', ...json(answer) },
    415: { description: 'a Content-Type that is not JSON', ...json(answer) },
    500: { description: 'an internal error', ...json(answer) },
    503: {
      description: 'shed: the limit of requests in flight is reached (Retry-After: 1); the service\'s error body, not a JSON-RPC answer',
      ...json({ type: 'object', properties: { _status: { type: 'object' } } }),
    },
  },
} as const;
