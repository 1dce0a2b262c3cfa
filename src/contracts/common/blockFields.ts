/** The block fields of an item carried by a record file (a result, a log): the reference's forms. */
import type { Block } from '../../db/blocks.ts';
import { int8 } from '../../format/json.ts';

/** What the fields show of the record file. */
type BlockOf = Pick<Block, 'hash' | 'number'>;

/** `block_hash`: the record file's hash, `0x` without one. */
export const blockHashOf = (block: BlockOf | undefined): string => (block ? `0x${block.hash}` : '0x');

/** `block_number`: the block's number, null without one. */
export const blockNumberOf = (block: BlockOf | undefined): number | bigint | null => (block ? int8(block.number) : null);
