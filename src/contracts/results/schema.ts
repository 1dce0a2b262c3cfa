/** The documentation of GET /api/v1/contracts/{contractIdOrAddress}/results. */
import { ALL_OPERATORS, BAD_REQUEST, CONTRACT_ID_OR_ADDRESS, NOT_FOUND, RESULT_FILTERS, SERVICE_UNAVAILABLE, timestampFilter, TRANSACTION_INDEX, listingOk, TOO_MANY_STREAMS } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const contractResultsSchema: RouteSchema = {
  operationId: 'getContractResultsByContractId',
  summary: 'List contract results from a contract on the network',
  description:
    "Returns a list of all ContractResults for a contract's function executions. The contract 0.0.0 (also `0`, or the zero address) " +
    'stands for every contract.',
  tags: ['contracts'],
  params: { type: 'object', required: ['contractId'], properties: { contractId: CONTRACT_ID_OR_ADDRESS } },
  querystring: {
    type: 'object',
    properties: {
      ...RESULT_FILTERS,
      timestamp: timestampFilter(ALL_OPERATORS, 'The consensus timestamp of the results; every filter applies.'),
      'transaction.index': TRANSACTION_INDEX,
    },
  },
  response: {
    200: listingOk('ContractResultsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};

/** The documentation of GET /api/v1/contracts/results. */

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
    200: listingOk('NetworkContractResultsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};
