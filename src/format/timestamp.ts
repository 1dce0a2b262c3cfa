/** ns integer text -> "<seconds>.<9-digit nanos>"; null stays null. */
export function formatTimestamp(ns: string | bigint | null): string | null {
  if (ns === null) return null;
  const text = typeof ns === 'bigint' ? ns.toString() : ns;
  const seconds = text.length > 9 ? text.slice(0, -9) : '0';
  const nanos = text.slice(-9).padStart(9, '0');
  return `${seconds}.${nanos}`;
}

const TIMESTAMP = /^\d{1,10}(\.\d{1,9})?$/;

export function isTimestamp(text: string): boolean {
  return TIMESTAMP.test(text);
}

/** "seconds[.fraction]" -> ns text (fraction right-padded to 9 digits). Assumes isTimestamp(text). */
export function timestampToNs(text: string): string {
  const [seconds, fraction = ''] = text.split('.');
  return BigInt(`${seconds}${fraction.padEnd(9, '0')}`).toString();
}
