/**
 * Resolution of the entities a request names by EVM address, with the reference's answers when
 * none or several match (404 / 400; the reference answers 500 for several).
 */
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { badRequest, notFound } from '../../http/request/errors.ts';
import type { ContractRef } from '../../http/request/contract.ts';
import { contractAddressNotFound, invalidParameter } from '../../http/request/messages.ts';
import { findEntityIdsByEvmAddress } from './evmAddresses.ts';

/**
 * The contract id of a path reference: an id as it is (no existence check), an opaque address
 * looked up among the live contracts (none: 404 with the reference's create2 message).
 */
export async function resolveContract(db: Db, ref: ContractRef): Promise<bigint> {
  if (ref.kind === 'id') return ref.id;
  const ids = await findEntityIdsByEvmAddress(db, { hex: ref.hex, shard: ref.shard, realm: ref.realm, contractsOnly: true });
  if (ids.length === 0) throw notFound(contractAddressNotFound(ref.hex));
  if (ids.length > 1) {
    throw badRequest(`${invalidParameter('contractid')} - more than one contract has the evm address 0x${ref.hex}`);
  }
  return ids[0]!;
}

/** The id of the live entity of any type with this opaque address in the configured shard/realm (none: 404). */
export async function resolveSender(db: Db, hex: string, config: Config): Promise<bigint> {
  const ids = await findEntityIdsByEvmAddress(db, {
    hex,
    shard: config.common.shard.toString(),
    realm: config.common.realm.toString(),
    contractsOnly: false,
  });
  if (ids.length === 0) throw notFound();
  if (ids.length > 1) throw badRequest(`${invalidParameter('from')} - more than one entity has the evm address 0x${hex}`);
  return ids[0]!;
}

/**
 * The contract ids of several references, without answering 404 for an address no contract has:
 * it matches nothing (the `address` filter of the logs listing, an addition). Distinct, in order.
 */
export async function resolveContracts(db: Db, refs: readonly ContractRef[]): Promise<bigint[]> {
  const ids = new Set<bigint>();
  for (const ref of refs) {
    if (ref.kind === 'id') ids.add(ref.id);
    else for (const id of await findEntityIdsByEvmAddress(db, { hex: ref.hex, shard: ref.shard, realm: ref.realm, contractsOnly: true })) ids.add(id);
  }
  return [...ids];
}
