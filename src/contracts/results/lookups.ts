/**
 * The lookups both results routes make before their statement: the senders of the `from` filters
 * and the record file of a block filter.
 */
import type { Config } from '../../config/config.ts';
import { type Block, blockByHashPrefix, blockByNumber } from '../../db/blocks.ts';
import type { Db } from '../../db/db.ts';
import { INT64, type Range, emptyRange, narrow } from '../../db/range.ts';
import { resolveSender } from '../common/resolve.ts';
import type { BlockFilter, ResultsParams } from './params.ts';

/** The sender_id range of the `from` filters, opaque addresses looked up in query order. */
export async function senderRange(db: Db, senders: ResultsParams['senders'], config: Config): Promise<Range<bigint>> {
  let range = emptyRange<bigint>();
  for (const { operator, sender } of senders) {
    const id = sender.kind === 'id' ? sender.id : await resolveSender(db, sender.hex, config);
    range = narrow(range, operator, id, INT64);
  }
  return range;
}

/** The record file a block filter names, if any. */
export const findBlock = (db: Db, block: BlockFilter): Promise<Block | undefined> =>
  block.kind === 'number' ? blockByNumber(db, block.value) : blockByHashPrefix(db, block.prefix);
