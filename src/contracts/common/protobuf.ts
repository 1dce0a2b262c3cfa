/**
 * Just enough protobuf to read the sender alias out of a stored `ContractFunctionResult`
 * (contract_result.function_result), decoding exactly as the reference's protobufjs-generated
 * decoder does, including what makes it fail: every field the HAPI schema declares is read with its
 * declared type whatever its wire type (a nested message's bytes are decoded as that message, so
 * garbage inside them fails), unknown fields are skipped by wire type (4, 6 and 7 are errors),
 * and out-of-range reads throw. Any failure means "no alias".
 *
 *   ContractFunctionResult.sender_id = 13 (AccountID); AccountID.alias = 4 (bytes)
 */

class DecodeError extends Error {}

/** Past the end, a byte reads as 256: like protobufjs's `undefined`, it masks to 0 and is not < 128. */
const PAST_END = 256;

/** A cursor over the bytes with protobufjs's Reader semantics (including its lenient spots). */
class Reader {
  pos = 0;
  readonly len: number;

  constructor(private readonly buf: Uint8Array) {
    this.len = buf.length;
  }

  private byte(i: number): number {
    return i >= 0 && i < this.len ? this.buf[i]! : PAST_END;
  }

  /** Varint read as uint32: up to 5 bytes are examined without bounds checks, then 5 more skipped. */
  uint32(): number {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const b = this.byte(this.pos++);
      value = (value | ((b & (i === 4 ? 15 : 127)) << (7 * i))) >>> 0;
      if (b < 128) return value;
    }
    if ((this.pos += 5) > this.len) {
      this.pos = this.len;
      throw new DecodeError('index out of range');
    }
    return value;
  }

  /** A 64-bit varint (int64/uint64 fields); only the position matters here. */
  skipLongVarint(): void {
    let i = 0;
    if (this.len - this.pos > 4) {
      for (; i < 5; i++) if (this.byte(this.pos++) < 128) return;
      i = 0;
    } else {
      for (; i < 3; i++) {
        if (this.pos >= this.len) throw new DecodeError('index out of range');
        if (this.byte(this.pos++) < 128) return;
      }
      this.pos++; // the fourth byte is taken without a check, whatever it is
      return;
    }
    if (this.len - this.pos > 4) {
      for (; i < 5; i++) if (this.byte(this.pos++) < 128) return;
    } else {
      for (; i < 5; i++) {
        if (this.pos >= this.len) throw new DecodeError('index out of range');
        if (this.byte(this.pos++) < 128) return;
      }
    }
    throw new DecodeError('invalid varint encoding');
  }

  bytes(): Uint8Array {
    const length = this.uint32();
    const start = this.pos;
    const end = start + length;
    if (end > this.len) throw new DecodeError('index out of range');
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  skip(length?: number): void {
    if (length !== undefined) {
      if (this.pos + length > this.len) throw new DecodeError('index out of range');
      this.pos += length;
      return;
    }
    do {
      if (this.pos >= this.len) throw new DecodeError('index out of range');
    } while (this.byte(this.pos++) & 128);
  }

  skipType(wireType: number): void {
    switch (wireType) {
      case 0:
        this.skip();
        break;
      case 1:
        this.skip(8);
        break;
      case 2:
        this.skip(this.uint32());
        break;
      case 3:
        for (let wt = this.uint32() & 7; wt !== 4; wt = this.uint32() & 7) this.skipType(wt);
        break;
      case 5:
        this.skip(4);
        break;
      default:
        throw new DecodeError(`invalid wire type ${wireType}`);
    }
  }
}

type FieldKind = 'varint64' | 'bytes' | Schema;
/** Field number -> how the generated decoder reads it. */
interface Schema {
  name: string;
  fields: ReadonlyMap<number, FieldKind>;
}

const schema = (name: string, fields: Array<[number, FieldKind]>): Schema => ({ name, fields: new Map(fields) });

const CONTRACT_ID = schema('ContractID', [[1, 'varint64'], [2, 'varint64'], [3, 'varint64'], [4, 'bytes']]);
const ACCOUNT_ID = schema('AccountID', [[1, 'varint64'], [2, 'varint64'], [3, 'varint64'], [4, 'bytes']]);
const LOG_INFO = schema('ContractLoginfo', [[1, CONTRACT_ID], [2, 'bytes'], [3, 'bytes'], [4, 'bytes']]);
const NONCE_INFO = schema('ContractNonceInfo', [[1, CONTRACT_ID], [2, 'varint64']]);
const BYTES_VALUE = schema('BytesValue', [[1, 'bytes']]);
const INT64_VALUE = schema('Int64Value', [[1, 'varint64']]);
const FUNCTION_RESULT = schema('ContractFunctionResult', [
  [1, CONTRACT_ID],
  [2, 'bytes'], // contractCallResult
  [3, 'bytes'], // errorMessage (string: read as bytes, never fails)
  [4, 'bytes'], // bloom
  [5, 'varint64'], // gasUsed
  [6, LOG_INFO],
  [7, CONTRACT_ID], // createdContractIDs
  [9, BYTES_VALUE], // evm_address
  [10, 'varint64'], // gas
  [11, 'varint64'], // amount
  [12, 'bytes'], // functionParameters
  [13, ACCOUNT_ID], // sender_id
  [14, NONCE_INFO], // contract_nonces
  [15, INT64_VALUE], // signer_nonce
]);

/** Decoded fields kept: the last value of each (field number -> bytes or nested message). */
interface Message {
  bytes: Map<number, Uint8Array>;
  messages: Map<number, Message>;
}

/** Decodes one message from the reader's position up to `end` (which may lie beyond the buffer). */
function decode(reader: Reader, type: Schema, end: number): Message {
  const message: Message = { bytes: new Map(), messages: new Map() };
  while (reader.pos < end) {
    const tag = reader.uint32();
    const kind = type.fields.get(tag >>> 3);
    if (kind === undefined) reader.skipType(tag & 7);
    else if (kind === 'varint64') reader.skipLongVarint();
    else if (kind === 'bytes') message.bytes.set(tag >>> 3, reader.bytes());
    else {
      const length = reader.uint32();
      message.messages.set(tag >>> 3, decode(reader, kind, reader.pos + length));
    }
  }
  return message;
}

/**
 * The `alias` of `sender_id` in a serialized ContractFunctionResult, or undefined when the bytes do
 * not decode, there is no sender, or its alias is absent or empty.
 */
export function senderAlias(functionResult: Uint8Array): Uint8Array | undefined {
  try {
    const reader = new Reader(functionResult);
    const result = decode(reader, FUNCTION_RESULT, reader.len);
    const alias = result.messages.get(13)?.bytes.get(4);
    return alias !== undefined && alias.length > 0 ? alias : undefined;
  } catch {
    // DecodeError, or a RangeError from very deeply nested groups: the reference catches both.
    return undefined;
  }
}
