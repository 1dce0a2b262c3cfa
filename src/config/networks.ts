/**
 * Several networks from one deployment (`networks.*`): the network of a request is the first label of
 * its Host (`testnet.example.org`), among the four the interface names; each network served has its
 * own database (`url` or `db.*`, its replicas under `db.replicas.*`) and its own response cache keys
 * (`cache.keyPrefix`, default `<cache.response.keyPrefix><network>:`). `networks.default` serves hosts
 * that name no network (localhost, an IP address). Without `networks`, one database serves every host.
 *
 *   hiero.mirror.rest.networks:
 *     default: testnet
 *     testnet: { url: postgres://mirror_api:...@testnet-db:5432/mirror_node }
 *     previewnet: { db: { host: previewnet-db, replicas: { hosts: previewnet-replica } } }
 *
 * Environment: HIERO_MIRROR_REST_NETWORKS_<NETWORK>_<KEY PATH>, e.g. ..._NETWORKS_TESTNET_URL,
 * ..._NETWORKS_PREVIEWNET_DB_HOST, ..._NETWORKS_DEFAULT; mainnet-public is MAINNETPUBLIC there.
 */
import { type Tree, isTree, mergeTree, setCaseInsensitive } from './tree.ts';
import { ConfigError } from './values.ts';

export const NETWORK_NAMES = ['mainnet-public', 'mainnet', 'testnet', 'previewnet'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

export const isNetworkName = (name: string): name is NetworkName => (NETWORK_NAMES as readonly string[]).includes(name);

/** One network's own keys: its database URL, and what it sets of `db.*` and of `cache.*`. */
export interface NetworkKeys {
  name: NetworkName;
  url: string | undefined;
  /** Keys merged over the service's own (`db`, `cache.response`) for this network. */
  overrides: Tree;
  keyPrefix: string | undefined;
}

export interface NetworksKeys {
  defaultNetwork: NetworkName | undefined;
  networks: NetworkKeys[];
}

/** The `networks` subtree, checked: only the four names, `default` one of those served. */
export function readNetworks(tree: Tree): NetworksKeys {
  const networks: NetworkKeys[] = [];
  let defaultNetwork: NetworkName | undefined;
  for (const [key, value] of Object.entries(tree)) {
    if (key === 'default') {
      if (value === '' || value === undefined || value === null) continue;
      if (typeof value !== 'string' || !isNetworkName(value)) throw new ConfigError(`Invalid configuration: networks.default must be one of ${NETWORK_NAMES.join(', ')}, got ${JSON.stringify(value)}`);
      defaultNetwork = value;
      continue;
    }
    if (!isNetworkName(key)) throw new ConfigError(`Invalid configuration: networks.${key}: the networks are ${NETWORK_NAMES.join(', ')}`);
    if (!isTree(value)) throw new ConfigError(`Invalid configuration: networks.${key} must be a map (url, db.*, cache.keyPrefix)`);
    const { url, db, cache, ...rest } = value;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw new ConfigError(`Invalid configuration: networks.${key}.${unknown[0]}: a network takes url, db.* and cache.keyPrefix`);
    if (url !== undefined && typeof url !== 'string') throw new ConfigError(`Invalid configuration: networks.${key}.url must be a PostgreSQL URL`);
    if (cache !== undefined && (!isTree(cache) || Object.keys(cache).some((k) => k !== 'keyPrefix'))) {
      throw new ConfigError(`Invalid configuration: networks.${key}.cache takes keyPrefix only`);
    }
    if (url === undefined && !isTree(db)) throw new ConfigError(`Invalid configuration: networks.${key} needs its database: url or db.*`);
    networks.push({
      name: key,
      url: url || undefined,
      overrides: isTree(db) ? { db } : {},
      keyPrefix: isTree(cache) && typeof cache.keyPrefix === 'string' ? cache.keyPrefix : undefined,
    });
  }
  if (networks.length === 0) throw new ConfigError('Invalid configuration: networks names no network to serve');
  if (defaultNetwork !== undefined && !networks.some((n) => n.name === defaultNetwork)) {
    throw new ConfigError(`Invalid configuration: networks.default is ${defaultNetwork}, which is not served`);
  }
  return { defaultNetwork, networks };
}

/**
 * An environment variable under NETWORKS_ (the segments after it) into `target` (the `networks`
 * subtree), the key path's case taken from `template` (the service's defaults); false when it names
 * nothing known.
 */
export function setNetworkVariable(target: Tree, segments: string[], value: string, template: Tree): boolean {
  const [first, ...path] = segments;
  if (first === undefined) return false;
  if (path.length === 0 && first.toLowerCase() === 'default') {
    target.default = value.toLowerCase();
    return true;
  }
  const name = first.toLowerCase() === 'mainnetpublic' ? 'mainnet-public' : first.toLowerCase();
  if (!isNetworkName(name) || path.length === 0) return false;
  const known: Tree = { url: '', db: structuredClone(template.db), cache: { keyPrefix: '' } };
  const canonical = setCaseInsensitive(known, path, value);
  if (canonical === undefined) return false;
  let node = (target[name] = isTree(target[name]) ? target[name] : {}) as Tree;
  for (const key of canonical.slice(0, -1)) node = (node[key] = isTree(node[key]) ? node[key] : {}) as Tree;
  node[canonical[canonical.length - 1]!] = value;
  return true;
}

/** The service's tree for one network: its `db.*` over the service's own. */
export const networkTree = (rest: Tree, network: NetworkKeys): Tree => mergeTree(structuredClone(rest), network.overrides);
