// Conformance test data loader: turns the `setup` object of a reference spec file into database rows,
// exactly as the reference REST test loader does (see shared/conformance/defaults.json, which is the
// authoritative description of every setup key, default value, value encoding and derived row).
//
// The work is split by job: loader/values.ts (value encodings), loader/database.ts (clearing tables,
// inserting rows), and one file per family of setup keys (entities, contract results, transactions).
import { type LoadContext, type SqlExecutor, columnTypes } from './loader/database.ts';
import {
  addContractAction,
  addContractLog,
  addContractResult,
  addContractState,
  addContractStateChange,
  addContractTransaction,
  addEthereumTransaction,
  deriveContractTransactions,
} from './loader/contractResults.ts';
import { addAccount, addContract, addFileData, addPlainEntity, addRecordFile } from './loader/entities.ts';
import { addTransaction, addTransactionHash } from './loader/transactions.ts';
import { type Row, rowsOf } from './loader/values.ts';

export { clearTables, type SqlExecutor } from './loader/database.ts';
export { deriveContractTransactions } from './loader/contractResults.ts';
export { isCurrentRange } from './loader/entities.ts';
export {
  aliasBytes,
  base32DecodeLoose,
  bytesFromArray,
  distributionId,
  entityIdFromParts,
  entityKeyBytes,
  hexOrBase64,
  jsonText,
  parseEntityId,
  pgArrayLiteral,
  toBigInt,
  toPgText,
} from './loader/values.ts';

type RowLoader = (ctx: LoadContext, row: Row) => Promise<void>;

const DERIVED_CONTRACT_TRANSACTIONS = '(derived contract_transaction rows)';

/** The loaders of the setup keys this loader implements. */
const LOADERS: Readonly<Record<string, RowLoader>> = {
  accounts: addAccount,
  contracts: addContract,
  contractactions: addContractAction,
  contractlogs: addContractLog,
  contractresults: addContractResult,
  contractStateChanges: addContractStateChange,
  entities: addPlainEntity,
  ethereumtransactions: addEthereumTransaction,
  filedata: addFileData,
  recordFiles: addRecordFile,
  transactions: addTransaction,
  transactionhashes: addTransactionHash,
  contractStates: addContractState,
};

/**
 * Setup keys the reference loader understands but defaults.json does not describe (none occurs in
 * the contract specs): loading one throws instead of silently dropping its rows.
 */
export const UNSUPPORTED_SETUP_KEYS: readonly string[] = [
  'addressbooks', 'addressbookentries', 'addressbookserviceendpoints', 'assessedcustomfees', 'balances',
  'cryptotransfers', 'cryptoAllowances', 'customfees', 'entityStakes', 'networkstakes', 'nfts', 'nodes', 'nodestakes',
  'schedules', 'stakingRewardTransfers', 'topicmessages', 'topicmessagelookups', 'tokens', 'tokenaccounts',
  'tokenAllowances', 'tokenBalance', 'transactionsignatures',
];

/** global.load_order of defaults.json (reference loader order). */
export const LOAD_ORDER: readonly string[] = [
  'accounts', 'addressbooks', 'addressbookentries', 'addressbookserviceendpoints', 'assessedcustomfees', 'balances',
  'cryptotransfers', 'contracts', 'contractactions', 'contractlogs', 'contractresults', 'contractStateChanges',
  DERIVED_CONTRACT_TRANSACTIONS, 'cryptoAllowances', 'customfees', 'entities', 'entityStakes', 'ethereumtransactions',
  'filedata', 'networkstakes', 'nfts', 'nodes', 'nodestakes', 'recordFiles', 'schedules', 'stakingRewardTransfers',
  'topicmessages', 'topicmessagelookups', 'tokens', 'tokenaccounts', 'tokenAllowances', 'tokenBalance', 'transactions',
  'transactionhashes', 'transactionsignatures', 'contractStates',
];

async function loadRows(ctx: LoadContext, key: string, rows: readonly Row[], load: RowLoader): Promise<void> {
  for (const [i, row] of rows.entries()) {
    try {
      await load(ctx, row);
    } catch (err) {
      throw new Error(`setup.${key}[${i}]: ${(err as Error)?.message ?? String(err)}`, { cause: err });
    }
  }
}

/**
 * Loads a spec's `setup` in the reference order (global.load_order), one INSERT per row. `config`,
 * `features` and `sql` are not data and are ignored, as are keys the reference loader does not know;
 * keys of UNSUPPORTED_SETUP_KEYS with rows throw.
 */
export async function loadSetup(db: SqlExecutor, setup: Record<string, unknown>): Promise<void> {
  for (const key of UNSUPPORTED_SETUP_KEYS) {
    if (rowsOf(setup, key).length > 0) throw new Error(`setup.${key} is not supported by the conformance loader`);
  }
  const ctx: LoadContext = { db, types: await columnTypes(db) };
  for (const key of LOAD_ORDER) {
    if (key === DERIVED_CONTRACT_TRANSACTIONS) {
      await loadRows(ctx, 'contract_transaction (derived)', deriveContractTransactions(setup), addContractTransaction);
      continue;
    }
    const load = LOADERS[key];
    if (load !== undefined) await loadRows(ctx, key, rowsOf(setup, key), load);
  }
}
