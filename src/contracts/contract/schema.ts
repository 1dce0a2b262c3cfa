/** The documentation of the contract family: one contract, and the listing. */
import { ALL_OPERATORS, BAD_REQUEST, CONTRACT_ID_OR_ADDRESS, LIMIT, NOT_FOUND, ok, order, repeatedFilter, SERVICE_UNAVAILABLE, timestampFilter, listingOk, TOO_MANY_STREAMS } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

/** GET /api/v1/contracts/{contractIdOrAddress} */
export const contractLookupSchema: RouteSchema = {
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

/** GET /api/v1/contracts */
export const contractListingSchema: RouteSchema = {
  operationId: 'getContracts',
  summary: 'List contract entities on network',
  description: 'Returns a list of all contract entity items on the network, without their bytecodes.',
  tags: ['contracts'],
  querystring: {
    type: 'object',
    properties: {
      'contract.id': repeatedFilter(
        ALL_OPERATORS,
        '((\\d{1,4}\\.)?\\d{1,5}\\.\\d{1,12}|-?\\d{1,19}|(\\d{1,4}\\.)?(\\d{1,5}\\.)?[A-Fa-f0-9]{40})',
        'The ID of the smart contract with an optional operator, or its EVM address (40 hex digits without 0x, optionally prefixed with ' +
          '`shard.realm.`; `eq` only).',
      ),
      limit: LIMIT,
      order: order('desc'),
    },
  },
  response: {
    200: listingOk('ContractsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};
