/** The reference's client error messages that several routes share, word for word. */

export const invalidParameter = (key: string): string => `Invalid parameter: ${key}`;

export const unknownParameter = (key: string): string => `Unknown query parameter: ${key}`;

export const countExceeded = (key: string, count: number, max: number): string =>
  `Parameter values count exceeds maximum number allowed: ${key} count: ${count} max: ${max}`;

export const invalidEntityId = (text: string): string => `Invalid entity ID "${text}"`;

export const contractAddressNotFound = (hex: string): string =>
  `No contract with the given evm address 0x${hex} has been found.`;

export const INVALID_TRANSACTION_ID =
  'Invalid Transaction id. Please use "shard.realm.num-sss-nnn" format where sss are seconds and nnn are nanoseconds';

export const TRANSACTION_INDEX_NEEDS_BLOCK =
  'Invalid parameter usage: transaction.index - transaction.index requires block.number or block.hash filter to be specified';

export const BLOCK_NUMBER_AND_HASH = 'Invalid parameter usage: block.hash - cannot combine block.number and block.hash';
