// Setup keys of the transaction family: transactions (with their transaction_hash row and fee and
// token transfers) and transaction hashes, with their defaults.
import { type LoadContext, insertRow } from './database.ts';
import { type Row, asRow, bytesFromArray, describeValue, distributionId, hexOrBase64, jsonText, parseEntityId, toBigInt } from './values.ts';

const TRANSACTION_COLUMNS = [
  'batch_key', 'charged_tx_fee', 'consensus_timestamp', 'entity_id', 'inner_transactions', 'max_custom_fees',
  'max_fee', 'nft_transfer', 'node_account_id', 'nonce', 'parent_consensus_timestamp', 'payer_account_id', 'result',
  'scheduled', 'transaction_bytes', 'transaction_hash', 'type', 'valid_duration_seconds', 'valid_start_ns', 'index',
] as const;

const NODE_FEE = 2n;
const NETWORK_FEE = 1n;
const SERVICE_FEE = 4n;
const DEFAULT_NODE_ACCOUNT = 3n;
const DEFAULT_FEE_COLLECTOR = 98n;

const TRANSACTION_DEFAULTS: Row = {
  batch_key: null,
  charged_tx_fee: NODE_FEE + NETWORK_FEE + SERVICE_FEE,
  consensus_timestamp: null,
  entity_id: null,
  inner_transactions: null,
  max_custom_fees: [],
  max_fee: 33,
  nft_transfer: null,
  node_account_id: null,
  nonce: 0,
  parent_consensus_timestamp: null,
  payer_account_id: null,
  result: 22,
  scheduled: false,
  transaction_bytes: 'bytes',
  transaction_hash: '0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30',
  type: 14,
  valid_duration_seconds: 11,
  valid_start_ns: null,
  index: 1,
};

const TRANSFER_COLUMNS = ['consensus_timestamp', 'amount', 'entity_id', 'payer_account_id', 'is_approval'] as const;
const TOKEN_TRANSFER_COLUMNS = [
  'consensus_timestamp', 'token_id', 'account_id', 'amount', 'payer_account_id', 'is_approval',
] as const;
const TRANSACTION_HASH_COLUMNS = ['consensus_timestamp', 'hash', 'payer_account_id', 'distribution_id'] as const;

/** JavaScript's `value > 0` for the loose types a spec can hold. */
function isPositive(value: unknown): boolean {
  return typeof value === 'bigint' ? value > 0n : Number(value) > 0;
}

/** transactions.batch_key: a hex string (no 0x handling) or a byte array; null stays NULL. */
function batchKeyBytes(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return Buffer.from(value, 'hex');
  if (Array.isArray(value)) return bytesFromArray(value);
  throw new TypeError(`batch_key must be a hex string or a byte array, got ${describeValue(value)}`);
}

/** transactions.nft_transfer: entity ids of every transfer parsed, then the list as JSON text. */
function nftTransferJson(value: unknown): string | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw new TypeError(`nft_transfer must be an array, got ${describeValue(value)}`);
  const transfers = value.map((transfer) => {
    const copy: Row = { ...asRow(transfer, 'nft_transfer entry') };
    for (const key of ['receiver_account_id', 'sender_account_id', 'token_id']) {
      copy[key] = parseEntityId(copy[key], { nullable: true });
    }
    return copy;
  });
  return jsonText(transfers);
}

export async function addTransaction(ctx: LoadContext, input: Row): Promise<void> {
  const transaction: Row = { ...TRANSACTION_DEFAULTS, transfers: [], ...input };
  // a valid_start_ns given in the spec is ignored
  transaction.valid_start_ns =
    input.valid_start_timestamp !== undefined
      ? input.valid_start_timestamp
      : toBigInt(transaction.consensus_timestamp, 'consensus_timestamp') - 1n;
  const payer = parseEntityId(transaction.payerAccountId);
  const node = parseEntityId(transaction.nodeAccountId, { nullable: true });
  transaction.payer_account_id = payer;
  transaction.node_account_id = node;
  transaction.entity_id = parseEntityId(transaction.entity_id, { nullable: true });
  transaction.transaction_hash = hexOrBase64(transaction.transaction_hash);
  transaction.batch_key = batchKeyBytes(transaction.batch_key);
  transaction.nft_transfer = nftTransferJson(transaction.nft_transfer);
  const maxCustomFees = transaction.max_custom_fees;
  if (Array.isArray(maxCustomFees) && maxCustomFees.length > 0) {
    throw new Error('transactions.max_custom_fees: protobuf CustomFeeLimit encoding is not supported');
  }
  await insertRow(ctx, 'transaction', TRANSACTION_COLUMNS, transaction);

  const consensusTimestamp = transaction.consensus_timestamp;
  await insertRow(ctx, 'transaction_hash', TRANSACTION_HASH_COLUMNS, {
    consensus_timestamp: consensusTimestamp,
    hash: transaction.transaction_hash,
    payer_account_id: payer,
    distribution_id: distributionId(transaction.transaction_hash),
  });

  const transfers = transaction.transfers;
  if (!Array.isArray(transfers)) throw new TypeError(`transfers must be an array, got ${describeValue(transfers)}`);
  if (transfers.length === 0 && isPositive(transaction.charged_tx_fee) && payer !== 0n) {
    const feeTransfers: [bigint, bigint][] = [
      [NODE_FEE, node || DEFAULT_NODE_ACCOUNT],
      [NETWORK_FEE, DEFAULT_FEE_COLLECTOR],
      [-(NODE_FEE + NETWORK_FEE), payer],
    ];
    for (const [amount, account] of feeTransfers) {
      await insertRow(ctx, 'crypto_transfer', TRANSFER_COLUMNS, {
        consensus_timestamp: consensusTimestamp,
        amount,
        entity_id: account,
        payer_account_id: payer,
        is_approval: false,
      });
    }
  }
  for (const entry of transfers) {
    const transfer = asRow(entry, 'transfer');
    await insertRow(ctx, 'crypto_transfer', TRANSFER_COLUMNS, {
      consensus_timestamp: consensusTimestamp,
      amount: transfer.amount,
      entity_id: parseEntityId(transfer.account),
      payer_account_id: payer,
      is_approval: transfer.is_approval,
    });
  }

  const tokenTransfers = transaction.token_transfer_list;
  if (Array.isArray(tokenTransfers)) {
    for (const entry of tokenTransfers) {
      const transfer = asRow(entry, 'token transfer');
      await insertRow(ctx, 'token_transfer', TOKEN_TRANSFER_COLUMNS, {
        consensus_timestamp: consensusTimestamp,
        token_id: parseEntityId(transfer.token_id),
        account_id: parseEntityId(transfer.account),
        amount: transfer.amount,
        payer_account_id: payer,
        is_approval: transfer.is_approval,
      });
    }
  }
}

export async function addTransactionHash(ctx: LoadContext, input: Row): Promise<void> {
  const row: Row = { ...input };
  row.hash = hexOrBase64(row.hash);
  row.payer_account_id = parseEntityId(row.payer_account_id);
  row.distribution_id = distributionId(row.hash);
  await insertRow(ctx, 'transaction_hash', Object.keys(row), row);
}
