/** The documentation of GET /api/v1/contracts/{contractIdOrAddress}. */
import { ALL_OPERATORS, BAD_REQUEST, CONTRACT_ID_OR_ADDRESS, NOT_FOUND, SERVICE_UNAVAILABLE, ok, timestampFilter } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const contractSchema: RouteSchema = {
  operationId: 'getContract',
  summary: 'Get contract by id',
  description:
    'Return the contract information given an id or EVM address, with its bytecodes. With `timestamp`, the version of the contract ' +
    'as of that time (`timestamp=T` and `lte:T`: the latest version that started at or before T).',
  tags: ['contracts'],
  params: { type: 'object', required: ['contractId'], properties: { contractId: CONTRACT_ID_OR_ADDRESS } },
  querystring: {
    type: 'object',
    properties: {
      timestamp: timestampFilter(ALL_OPERATORS, 'The version of the contract valid at this consensus timestamp; several filters are combined.'),
    },
  },
  response: {
    200: ok('ContractResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    503: SERVICE_UNAVAILABLE,
  },
};
