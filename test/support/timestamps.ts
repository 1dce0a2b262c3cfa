/** Nanoseconds as the API writes a timestamp: seconds.nanoseconds, nine digits after the point. */
export const seconds = (ns: bigint): string => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
