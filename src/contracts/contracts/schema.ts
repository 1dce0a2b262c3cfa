/** The documentation of GET /api/v1/contracts. */
import { ALL_OPERATORS, BAD_REQUEST, LIMIT, NOT_FOUND, SERVICE_UNAVAILABLE, ok, order, repeatedFilter } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const contractsSchema: RouteSchema = {
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
    200: ok('ContractsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    503: SERVICE_UNAVAILABLE,
  },
};
