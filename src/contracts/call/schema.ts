/** The documentation of GET /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}. */
import { BAD_REQUEST, CONTRACT_ID_OR_ADDRESS, NOT_FOUND, SERVICE_UNAVAILABLE, TIMESTAMP_PATH, ok } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const resultByTimestampSchema: RouteSchema = {
  operationId: 'getContractResultByIdAndTimestamp',
  summary: 'Get the contract result from a contract on the network executed at a given timestamp',
  description:
    "Returns a single ContractResult for a contract's function executions at a specific timestamp, with its logs and state changes. " +
    'The path may name any entity involved in the transaction (the payer, the sender, a called contract). No query parameter is accepted.',
  tags: ['contracts'],
  params: {
    type: 'object',
    required: ['contractId', 'timestamp'],
    properties: { contractId: CONTRACT_ID_OR_ADDRESS, timestamp: TIMESTAMP_PATH },
  },
  response: {
    200: ok('ContractResultDetails'),
    206: ok('ContractResultDetails', 'Partial Content: the result has no call_result'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    503: SERVICE_UNAVAILABLE,
  },
};
