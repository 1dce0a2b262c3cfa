/** The documentation of GET /api/v1/contracts/results/{transactionIdOrHash}/actions. */
import {
  BAD_REQUEST,
  LIMIT,
  NOT_FOUND,
  RANGE_OPERATORS,
  SERVICE_UNAVAILABLE,
  TRANSACTION_ID_OR_HASH,
  order,
  repeatedFilter,
  listingOk,
  TOO_MANY_STREAMS,
} from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const actionsSchema: RouteSchema = {
  operationId: 'getContractActions',
  summary: 'Get the contract actions from a contract on the network for a given transactionId or ethereum transaction hash',
  description:
    "Returns a list of ContractActions for a contract's function executions for a given transactionId or ethereum transaction hash: " +
    'the call trace of the transaction.',
  tags: ['contracts'],
  params: { type: 'object', required: ['transactionIdOrHash'], properties: { transactionIdOrHash: TRANSACTION_ID_OR_HASH } },
  querystring: {
    type: 'object',
    properties: {
      index: repeatedFilter(RANGE_OPERATORS, '\\d{1,10}', 'The index of a contract action, with an optional operator.'),
      limit: LIMIT,
      order: order('asc'),
    },
  },
  response: {
    200: listingOk('ContractActionsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};
