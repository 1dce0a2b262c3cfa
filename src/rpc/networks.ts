/**
 * The endpoint's view of the networks a process serves (src/http/server/networks.ts): a request's
 * network by its Host, and per network its chain id (src/config/rpc.ts) and filter store.
 */
import type { HostSource } from '../http/request/host.ts';
import type { Network, Networks } from '../http/server/networks.ts';
import { chainIdOf } from '../config/rpc.ts';
import { type FilterStore, filterStore } from './filterStore.ts';
import type { MethodContext } from './methods.ts';

export class RpcNetworks {
  private readonly contexts = new Map<Network, MethodContext>();
  private readonly stores: FilterStore[] = [];

  constructor(private readonly networks: Networks) {}

  /** The request's network; undefined when its host names one not served here. */
  of(request: HostSource): Network | undefined {
    const network = this.networks.of(request);
    return network?.config.rpc.enabled ? network : undefined;
  }

  /** What the methods of a request of `client` (its address) on `network` see. */
  context(network: Network, client: string): MethodContext {
    let context = this.contexts.get(network);
    if (context === undefined) {
      const filters = filterStore(network.config);
      this.stores.push(filters);
      context = { db: network.db, config: network.config, chainId: chainIdOf(network.config.rpc, network.name), filters, client: '' };
      this.contexts.set(network, context);
    }
    return { ...context, client };
  }

  /** The filter stores made so far (the metrics' count of filters). */
  get filterStores(): readonly FilterStore[] {
    return this.stores;
  }

  get all(): Network[] {
    return this.networks.all.filter((network) => network.config.rpc.enabled);
  }

  async close(): Promise<void> {
    await Promise.all(this.stores.map((store) => store.close()));
  }
}
