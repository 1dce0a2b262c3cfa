/**
 * The networks `serve` serves (config networks.*; src/config/networks.ts): each network's database
 * prepared as one database is, in order. `--networks testnet,previewnet` on the embedded database
 * gives each network its own embedded database (in <data dir>/<network>) with a demo network of its
 * own seed; the first is the default network of hosts that name none.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { NETWORK_NAMES, type NetworkName, isNetworkName } from '../config/networks.ts';
import { SEED } from '../demo/network.ts';
import { fail } from './output.ts';
import { type Served, migrateExternal, prepareEmbedded, prepareExternal } from './prepare.ts';

export interface ServedNetwork {
  name: NetworkName;
  config: Config;
  served: Served;
}

/** The configuration with the networks of `--networks` (the embedded database), checked. */
export function withEmbeddedNetworks(config: Config, names: string[]): Config {
  if (config.externalDatabase || config.networks) fail('--networks gives each network an embedded database; with PostgreSQL, configure networks.* instead', 2);
  const unknown = names.filter((name) => !isNetworkName(name));
  if (unknown.length > 0 || names.length === 0) fail(`--networks takes names among ${NETWORK_NAMES.join(', ')}, got ${JSON.stringify(names.join(','))}`, 2);
  return {
    ...config,
    networks: {
      defaultNetwork: names[0] as NetworkName,
      served: [...new Set(names as NetworkName[])].map((name) => ({ name, config: { ...config, cache: { ...config.cache, keyPrefix: `${config.cache.keyPrefix}${name}:` } } })),
    },
  };
}

/** Each network's database, ready; a network's embedded demo network has a seed of its own. */
export async function prepareNetworks(config: Config, flags: { dataDir: string; memory: boolean; migrate: boolean }, logger: Logger): Promise<ServedNetwork[]> {
  const out: ServedNetwork[] = [];
  for (const [i, network] of config.networks!.served.entries()) {
    const log = logger.child({ network: network.name });
    let served: Served;
    if (network.config.externalDatabase) {
      if (flags.migrate) await migrateExternal(network.config, log);
      served = await prepareExternal(network.config, log);
    } else {
      served = await prepareEmbedded({ dataDir: join(flags.dataDir, network.name), memory: flags.memory }, log, SEED + i + 1);
    }
    out.push({ name: network.name, config: network.config, served });
  }
  return out;
}
