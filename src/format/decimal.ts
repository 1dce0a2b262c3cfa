/**
 * The order of two integers written as PostgreSQL writes int8 text (decimal digits, a leading '-' when
 * negative, no leading zeros), found without parsing them: negative before positive, then the shorter
 * magnitude first, then the digits. Less than, equal to or greater than 0 as `a` is below, equal to
 * or above `b` (Array.prototype.sort's comparator). A page of logs compares its timestamps and record
 * files this way where BigInt parsing cost 1 % of the process's busy time under the bench mix.
 */
export function compareDecimal(a: string, b: string): number {
  const negativeA = a.charCodeAt(0) === 0x2d; /* - */
  if (negativeA !== (b.charCodeAt(0) === 0x2d)) return negativeA ? -1 : 1;
  const magnitude = a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  return negativeA ? -magnitude : magnitude;
}
