import type { HexBytes } from './hex.ts';

export interface FormattedKey {
  _type: 'ED25519' | 'ECDSA_SECP256K1' | 'ProtobufEncoded';
  key: string;
}

const ED25519 = /^(?:1220|32240a221220|2a28080112240a221220)([0-9a-f]{64})$/;
const ECDSA = /^(?:3a21|32250a233a21|2a29080112250a233a21)([0-9a-f]{66})$/;

/** Renders entity.key (a serialized protobuf Key) as the reference does. */
export function formatKey(h: HexBytes | null): FormattedKey | null {
  if (h === null) return null;
  if (h === '3200') return null; // empty key list: immutable
  const ed = ED25519.exec(h);
  if (ed) return { _type: 'ED25519', key: ed[1]! };
  const ec = ECDSA.exec(h);
  if (ec) return { _type: 'ECDSA_SECP256K1', key: ec[1]! };
  return { _type: 'ProtobufEncoded', key: h };
}
