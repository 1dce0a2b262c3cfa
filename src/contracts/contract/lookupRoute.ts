/** GET /api/v1/contracts/{contractIdOrAddress}: one contract, optionally as of a timestamp. */
import { hex } from '../../format/hex.ts';
import { notFound } from '../../http/request/errors.ts';
import type { Route } from '../../http/route.ts';
import { parseContractParams } from './params.ts';
import { findContract } from './query.ts';
import { contractJson, contractView, fileBytecodeText } from './view.ts';
import { contractLookupSchema } from './schema.ts';

export const contractLookupRoute: Route = {
  path: '/api/v1/contracts/:contractId',
  cacheControl: 'public, max-age=1',
  schema: contractLookupSchema,
  async handler({ config, db, query, params }) {
    const { contract, timestamps } = parseContractParams(params.contractId!, query, config);
    const rows = await findContract(db, contract, timestamps);
    if (rows.length !== 1) throw notFound();
    const row = rows[0]!;
    const bytecode = row.bytecode_from_file ? fileBytecodeText(row.file_bytecode) : hex(row.initcode);
    return { body: contractJson(contractView(row, bytecode), !row.bytecode_from_file) };
  },
};
