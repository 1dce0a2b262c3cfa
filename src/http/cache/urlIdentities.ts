/**
 * The request identity (key.ts) of a raw request URL without a link prefix, remembered: the answers
 * served before routing (server/cacheHits.ts) are the popular URLs, asked for again and again, and
 * parsing the query and joining the identity cost more than the cache lookup itself (about a
 * twentieth of the process's time under a cached load).
 *
 * Two generations of plain maps, bounded in bytes: lookups cost one or two Map reads and no
 * bookkeeping. An entry counts its URL's and identity's characters plus ENTRY_OVERHEAD (the map's
 * slot and two string headers); when the current generation has taken `maxBytes` it becomes the
 * previous one and the one before is dropped, so about twice `maxBytes` are held (twice the
 * characters of URLs outside Latin-1), and a URL asked for in either generation stays.
 */
import { parseQuery } from '../request/query.ts';
import { rawPath, rawSearch } from '../request/target.ts';
import { requestIdentity } from './key.ts';

/** 512 KiB per generation: about 1,800 URLs of 100 characters each (3,600 in both, 1 MiB held). */
const URL_IDENTITIES_MAX_BYTES = 512 * 1024;

/** What an entry costs beyond its characters: a Map slot and two string headers (V8, 64-bit). */
export const ENTRY_OVERHEAD = 80;

export class UrlIdentities {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = URL_IDENTITIES_MAX_BYTES) {}

  /** The identity of `url` (path and query as sent, no link prefix). */
  of(url: string): string {
    const known = this.current.get(url);
    if (known !== undefined) return known;
    const identity = this.previous.get(url) ?? requestIdentity({ path: rawPath(url), query: parseQuery(rawSearch(url)), linkBase: '' });
    const cost = url.length + identity.length + ENTRY_OVERHEAD;
    // a URL larger than a whole generation is not remembered
    if (cost > this.maxBytes) return identity;
    if (this.bytes + cost > this.maxBytes) {
      this.previous = this.current;
      this.current = new Map();
      this.bytes = 0;
    }
    this.current.set(url, identity);
    this.bytes += cost;
    return identity;
  }

  /** How many URLs are remembered (both generations; a URL may be in both). */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
