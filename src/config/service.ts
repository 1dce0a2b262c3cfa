/**
 * This service's own configuration keys: settings the reference does not have, under the same
 * `hiero.mirror.rest` root (and the same HIERO_MIRROR_REST_* variables), with their defaults.
 */

type Tree = Record<string, unknown>;

export const SERVICE_REST_DEFAULTS: Tree = {
  cache: {
    response: {
      /** How long the response cache keeps an answer that can no longer change (a duration). */
      immutableMaxAge: '1d',
      /** Bytes of answers the in-process tier holds in front of Redis; 0 turns that tier off. */
      localMaxBytes: 64 * 1024 * 1024,
      /** The longest a request waits on Redis, in ms (redis.commandTimeout caps it too). */
      timeout: 100,
      /** Prefix of this service's keys in Redis (a format version and a fingerprint follow it). */
      keyPrefix: 'cqs:',
    },
  },
};

/** The key paths above: honoured, like the reference's keys this service applies. */
export const SERVICE_KEYS = [
  'cache.response.immutableMaxAge',
  'cache.response.localMaxBytes',
  'cache.response.timeout',
  'cache.response.keyPrefix',
] as const;
