/**
 * The statements of GET /api/v1/contracts/{id}/results/{timestamp}: the call's involvement and its
 * rows, shared with the by-transaction route (src/contracts/shared/callQuery.ts).
 */
export { findCall, findFileContent } from '../shared/callQuery.ts';
