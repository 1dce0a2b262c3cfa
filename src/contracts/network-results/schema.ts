/** The documentation of GET /api/v1/contracts/results. */
import { ALL_OPERATORS, BAD_REQUEST, NOT_FOUND, RESULT_FILTERS, SERVICE_UNAVAILABLE, TRANSACTION_INDEX, ok, timestampFilter } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const networkResultsSchema: RouteSchema = {
  operationId: 'getContractsResults',
  summary: 'List contract results from all contracts on the network',
  description:
    "Returns a list of all ContractResults for all contract's function executions, each with its block and, for an Ethereum " +
    'transaction, its Ethereum fields.',
  tags: ['contracts'],
  querystring: {
    type: 'object',
    properties: {
      ...RESULT_FILTERS,
      timestamp: timestampFilter(
        ALL_OPERATORS,
        'The consensus timestamp of the results. With query.bindTimestampRange, an open range is bound to query.maxTransactionsTimestampRange.',
      ),
      'transaction.index': TRANSACTION_INDEX,
    },
  },
  response: {
    200: ok('NetworkContractResultsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    503: SERVICE_UNAVAILABLE,
  },
};
