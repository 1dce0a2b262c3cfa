import { contractIdForLookup, evmAddressRef, parseContractParam } from '../../http/contractParam.ts';
import { notFound } from '../../http/errors.ts';
import { type FilterRule, buildFilters } from '../../http/filters.ts';
import type { Route } from '../../http/server.ts';
import { hex } from '../../format/hex.ts';
import { timestampRule } from '../shared/rules.ts';
import { type ContractKey, findContract } from './query.ts';
import { contractJson, contractView, fileBytecodeText } from './view.ts';

const RULES = new Map<string, FilterRule>([['timestamp', timestampRule]]);

/** GET /api/v1/contracts/{contractIdOrAddress}: one contract, optionally as of a timestamp. */
export const contractRoute: Route = {
  path: '/api/v1/contracts/:contractId',
  headers: { 'cache-control': 'public, max-age=1' },
  async handler({ config, db, query, params }) {
    // The reference hands the literal "results" on to its all-contracts results listing, not served here.
    if (params.contractId === 'results') throw notFound();
    const param = parseContractParam(params.contractId!);
    const filters = buildFilters(query, RULES, config.query.maxRepeatedQueryParameters);
    const key: ContractKey = evmAddressRef(param, config) ?? { kind: 'id', id: contractIdForLookup(param, config) };
    const rows = await findContract(db, key, filters);
    if (rows.length !== 1) throw notFound();
    const row = rows[0]!;
    const bytecode = row.bytecode_from_file ? fileBytecodeText(row.file_bytecode) : hex(row.initcode);
    return { body: contractJson(contractView(row, bytecode), !row.bytecode_from_file) };
  },
};
