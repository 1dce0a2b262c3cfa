/**
 * The networks a process serves (config networks.*, src/config/networks.ts): each with its own
 * configuration, database, response cache and Indexed-Through memo, so that nothing one network
 * computes can answer another's request. A request's network is the first label of the host it
 * names (request/host.ts: an absolute-form target's authority, else Host; with server.trustProxy,
 * X-Forwarded-Host) when that is a network's name; any other host is the default network's. A
 * deployment without `networks` has one network, which every host reaches.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import { isNetworkName } from '../../config/networks.ts';
import type { Db } from '../../db/db.ts';
import { type SettledCompute, settledCompute } from '../cache/settledCompute.ts';
import { type ResponseCache, createResponseCache } from '../cache/responseCache.ts';
import type { CacheMetricsFamily } from '../cache/metrics.ts';
import { ClientError } from '../request/errors.ts';
import { type HostSource, hostLabel, requestHost } from '../request/host.ts';

export interface Network {
  /** undefined: the one database of a deployment without `networks`. */
  name: string | undefined;
  config: Config;
  db: Db;
  cache: ResponseCache | undefined;
  /** Reads the newest record file before an answer computed without the cache (Indexed-Through). */
  settledCompute: SettledCompute | undefined;
}

export interface NetworkSource {
  name: string;
  config: Config;
  db: Db;
}

export class Networks {
  readonly all: Network[];
  private readonly byName = new Map<string, Network>();
  private readonly fallback: Network | undefined;

  constructor(
    sources: readonly NetworkSource[],
    defaultName: string | undefined,
    private readonly trustProxy: boolean,
    make: (source: { name: string | undefined; config: Config; db: Db }) => Network,
    single?: { config: Config; db: Db },
  ) {
    if (sources.length === 0) {
      this.all = [make({ name: undefined, ...single! })];
      this.fallback = this.all[0];
    } else {
      this.all = sources.map((source) => make(source));
      for (const network of this.all) this.byName.set(network.name!, network);
      this.fallback = defaultName === undefined ? undefined : this.byName.get(defaultName);
    }
  }

  /** True when the deployment serves named networks (the metrics and the access log then name them). */
  get named(): boolean {
    return this.byName.size > 0;
  }

  /** The host a request names (the one its network and its links' origin are read from). */
  hostOf(request: HostSource): string {
    return requestHost(request, this.trustProxy);
  }

  /** The network of a request; undefined when its host names a network not served here, or none without a default. */
  of(request: HostSource): Network | undefined {
    if (!this.named) return this.fallback;
    const label = hostLabel(this.hostOf(request));
    if (isNetworkName(label)) return this.byName.get(label);
    return this.fallback;
  }

  /** The 404 of a request whose host reaches no network served here (never another network's data). */
  unknown(request: HostSource): ClientError {
    const label = hostLabel(this.hostOf(request));
    const served = [...this.byName.keys()].join(', ');
    const what = isNetworkName(label) ? `Network ${label} is not served here` : 'The host names no network and there is no default network';
    return new ClientError(404, `${what}; the networks served: ${served}`);
  }
}

/** A network's cache and memo, made once per process; `family`: the cache metrics of several networks. */
export function networkOf(source: { name: string | undefined; config: Config; db: Db }, logger: Logger, version: string, family?: CacheMetricsFamily): Network {
  const { config, db } = source;
  const named = source.name !== undefined && family !== undefined ? { family, network: source.name } : {};
  return {
    ...source,
    cache: config.cache.enabled ? createResponseCache({ config, db, logger, version, ...named }) : undefined,
    settledCompute: config.additions.enabled ? settledCompute(db) : undefined,
  };
}
