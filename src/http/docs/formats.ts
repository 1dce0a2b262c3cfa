/**
 * The value formats of the API documentation (entity ids, EVM addresses, timestamps, hex words,
 * keys, links) and the error body, shared by the component and parameter schemas.
 */
import { type JsonSchema, closedObject } from './schema.ts';

export const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type, 'null'] });

/** Hex digits with a `0x` prefix; `0x` alone for empty bytes. */
export const hex = (description: string, examples: string[] = ['0x']): JsonSchema => ({ type: 'string', pattern: '^0x[0-9a-f]*$', description, examples });

/** A 64-bit integer (exact in the JSON text, beyond 2^53 too). */
export const int64 = (description: string, examples: number[] = []): JsonSchema => ({
  type: 'integer',
  format: 'int64',
  description,
  ...(examples.length ? { examples } : {}),
});

export const int32 = (description: string, examples: number[] = []): JsonSchema => ({
  type: 'integer',
  format: 'int32',
  description,
  ...(examples.length ? { examples } : {}),
});

export const ENTITY_ID: JsonSchema = {
  type: 'string',
  description: 'Network entity ID in the format of `shard.realm.num`',
  pattern: '^\\d{1,4}\\.\\d{1,5}\\.\\d{1,12}$',
  examples: ['0.0.2'],
};

export const EVM_ADDRESS: JsonSchema = {
  type: 'string',
  description: 'A network entity encoded as an EVM address in hex.',
  pattern: '^0x[0-9a-f]{40}$',
  examples: ['0x0000000000000000000000000000000000001f41'],
};

export const TIMESTAMP: JsonSchema = {
  type: 'string',
  description: 'A Unix timestamp in seconds.nanoseconds format',
  pattern: '^\\d{1,10}\\.\\d{9}$',
  examples: ['1586567700.453054000'],
};

/** A 32-byte word (a storage slot or value) as 64 hex digits. */
export const WORD = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^0x[0-9a-f]{64}$',
  description,
  examples: ['0x00000000000000000000000000000000000000000000000000000000000000fa'],
});

export const BLOOM = (description: string): JsonSchema => hex(`${description} (256 bytes; \`0x\` when there is none)`);

export const BLOCK_HASH = hex('The hex encoded block (record file chain) hash; `0x` when the block is unknown', [
  '0x553f9311833391c0a3b2f9ed64540a89f2190a511986cd94889f1c0cf7fa63e898b1c6730f14a61755d1fb4ca05fb073',
]);

export const BLOCK_NUMBER = nullable(
  int64('The block height calculated as the number of record files starting from zero since network start; null when the block is unknown.', [10]),
);

// ---------------------------------------------------------------------------------------------

export const KEY: JsonSchema = {
  $id: 'Key',
  type: ['object', 'null'],
  description: 'The public key which controls access to various network entities; null when there is none.',
  required: ['_type', 'key'],
  additionalProperties: false,
  properties: {
    _type: { type: 'string', enum: ['ECDSA_SECP256K1', 'ED25519', 'ProtobufEncoded'], examples: ['ProtobufEncoded'] },
    key: { type: 'string', pattern: '^[0-9a-f]*$', examples: ['15706b229b3ba33d4a5a41ff54ce1cfe0a3d308672a33ff382f81583e02bd743'] },
  },
};

export const TIMESTAMP_RANGE: JsonSchema = {
  $id: 'TimestampRange',
  ...closedObject(
    {
      from: { ...nullable(TIMESTAMP), description: 'The inclusive from timestamp in seconds' },
      to: { ...nullable(TIMESTAMP), description: 'The exclusive to timestamp in seconds; null for the current version' },
    },
    'A timestamp range an entity is valid for',
  ),
};

export const LINKS: JsonSchema = {
  $id: 'Links',
  ...closedObject({
    next: {
      type: ['string', 'null'],
      description: 'The path and query of the next page (with the host when response.includeHostInLink is set); null when the page is the last one.',
      examples: ['/api/v1/contracts/0.0.2001/results/logs?limit=2&timestamp=lte:1748995199.000000003&index=lt:1'],
    },
  }),
};

/** The error body: `{"_status":{"messages":[{"message":...}]}}`. */
export const ERROR_BODY: JsonSchema = {
  description: 'An error: the reasons, one message each.',
  ...closedObject({
    _status: closedObject({
      messages: {
        type: 'array',
        minItems: 1,
        items: closedObject({ message: { type: 'string', description: 'Error message' } }),
      },
    }),
  }),
};

export const ERROR: JsonSchema = { $id: 'Error', ...ERROR_BODY };
