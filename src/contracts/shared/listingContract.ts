import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { type ContractParam, contractIdForListing, evmAddressRef } from '../../http/contractParam.ts';
import { badRequest, notFound } from '../../http/errors.ts';

/**
 * Resolves {contractIdOrAddress} for the listing endpoints (results, logs): ids need no database
 * access (an unknown id simply lists nothing); an opaque create2 address is looked up among the
 * non-deleted contracts of entity.
 */
export async function resolveListingContract(db: Db, param: ContractParam, config: Config): Promise<bigint> {
  const evm = evmAddressRef(param, config);
  if (evm === undefined) return contractIdForListing(param, config);
  const params: unknown[] = [Buffer.from(evm.hex, 'hex')];
  let sql = `select id from entity where evm_address = $1 and deleted <> true and type = 'CONTRACT'`;
  if (evm.shard !== null) {
    params.push(evm.shard);
    sql += ` and shard = $${params.length}`;
  }
  if (evm.realm !== null) {
    params.push(evm.realm);
    sql += ` and realm = $${params.length}`;
  }
  const rows = await db.query<{ id: string }>(`${sql} limit 2`, params);
  if (rows.length === 0) throw notFound(`No contract with the given evm address 0x${evm.hex} has been found.`);
  // The reference answers 500 here; two live contracts sharing an address is not something a client can fix.
  if (rows.length > 1) throw badRequest(`Invalid parameter: contractid - more than one contract has the evm address 0x${evm.hex}`);
  return BigInt(rows[0]!.id);
}
