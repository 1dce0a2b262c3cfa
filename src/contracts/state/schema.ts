/** The documentation of GET /api/v1/contracts/{contractIdOrAddress}/state. */
import {
  BAD_REQUEST,
  CONTRACT_ID_OR_ADDRESS,
  LIMIT,
  NOT_FOUND,
  RANGE_OPERATORS,
  SERVICE_UNAVAILABLE,
  order,
  repeatedFilter,
  timestampFilter,
  listingOk,
  TOO_MANY_STREAMS,
} from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const stateSchema: RouteSchema = {
  operationId: 'getContractState',
  summary: 'The contract state from a contract on the network',
  description: "Returns a list of all contract's slots. If no timestamp is provided, returns the current state.",
  tags: ['contracts'],
  params: { type: 'object', required: ['contractId'], properties: { contractId: CONTRACT_ID_OR_ADDRESS } },
  querystring: {
    type: 'object',
    properties: {
      limit: LIMIT,
      order: order('asc'),
      slot: repeatedFilter(RANGE_OPERATORS, '(0x)?[0-9A-Fa-f]{1,64}', "The slot's number: 1 to 64 hex digits, with an optional operator."),
      timestamp: timestampFilter(
        RANGE_OPERATORS,
        'The state as of this consensus timestamp (`eq` means `lte`): each slot with the last value written at or before it.',
      ),
    },
  },
  response: {
    200: listingOk('ContractStateResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};
