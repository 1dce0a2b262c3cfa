/**
 * The request identity (key.ts) of a raw request URL without a link prefix, remembered: the answers
 * served before routing (server/fastPath.ts) are the popular URLs, asked for again and again, and
 * parsing the query and joining the identity cost more than the cache lookup itself (about a
 * twentieth of the process's time under a cached load).
 *
 * Two generations of plain maps, bounded in characters: lookups cost one or two Map reads and no
 * bookkeeping. When the current generation has taken `maxChars` characters of URLs and identities
 * it becomes the previous one and the one before is dropped, so at most twice `maxChars` are held
 * and a URL asked for in either generation stays.
 */
import { parseQuery, rawPath, rawSearch } from '../request/query.ts';
import { requestIdentity } from './key.ts';

/** 256 Ki characters per generation: a few thousand URLs of a typical length, at most 1 MiB held. */
export const URL_IDENTITIES_MAX_CHARS = 256 * 1024;

export class UrlIdentities {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();
  private chars = 0;

  constructor(private readonly maxChars = URL_IDENTITIES_MAX_CHARS) {}

  /** The identity of `url` (path and query as sent, no link prefix). */
  of(url: string): string {
    const known = this.current.get(url);
    if (known !== undefined) return known;
    const identity = this.previous.get(url) ?? requestIdentity({ path: rawPath(url), query: parseQuery(rawSearch(url)), linkBase: '' });
    const cost = url.length + identity.length;
    // a URL larger than a whole generation is not remembered
    if (cost > this.maxChars) return identity;
    if (this.chars + cost > this.maxChars) {
      this.previous = this.current;
      this.current = new Map();
      this.chars = 0;
    }
    this.current.set(url, identity);
    this.chars += cost;
    return identity;
  }

  /** How many URLs are remembered (both generations; a URL may be in both). */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
