/** Parses durations written the way the reference configuration writes them: "7d", "10s", "35m", "500ms", "1h". */
const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
};

const DURATION = /^(\d+)(ns|us|ms|s|m|h|d)$/;

/** Returns the duration in nanoseconds, or undefined if the text is not a duration. */
export function parseDurationNs(text: string): bigint | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return BigInt(match[1]!) * UNIT_NS[match[2]!]!;
}
