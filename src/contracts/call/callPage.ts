/**
 * One call in full, as /contracts/{id}/results/{timestamp} and /contracts/results/{id or hash}
 * answer it: the involvement of an entity at a timestamp, then its rows (and the call data file
 * where the call data is kept in one) in the view of view.ts.
 */
import type { Db } from '../../db/db.ts';
import { notFound } from '../../http/request/errors.ts';
import type { Page } from '../../http/route.ts';
import { findCall, findFileContent } from './query.ts';
import { callView } from './view.ts';

/** Files up to 0.0.1000 are system files and never hold call data. */
const LAST_SYSTEM_FILE = 1000n;

/**
 * The call at `timestamp` that `entityId` took part in; 404 when it did not, or when no involved
 * contract has a result at that time (the reference answers 500 for the latter on the timestamp
 * route).
 */
export async function callPage(db: Db, timestamp: bigint, entityId: bigint, pathContractId: bigint): Promise<Page> {
  const rows = await findCall(db, { timestamp, entityId, pathContractId });
  if (!rows.involved || rows.result === undefined) throw notFound();
  const { eth } = rows;
  const needsFile =
    eth !== undefined && !eth.call_data && !rows.result.function_parameters && eth.call_data_id != null && BigInt(eth.call_data_id) > LAST_SYSTEM_FILE;
  const fileData = needsFile ? await findFileContent(db, eth.call_data_id!) : null;
  return callView({ ...rows, result: rows.result }, fileData);
}
