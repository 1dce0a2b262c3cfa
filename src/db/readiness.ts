import type { Db } from './db.ts';
import { sql } from './sql.ts';

/** The importer's tables the routes read; the service is ready when the database holds all of them. */
export const TABLES_READ = [
  'contract',
  'contract_action',
  'contract_log',
  'contract_result',
  'contract_state',
  'contract_state_change',
  'contract_transaction',
  'contract_transaction_hash',
  'entity',
  'entity_history',
  'ethereum_transaction',
  'file_data',
  'record_file',
  'transaction',
  'transaction_hash',
] as const;

/** The tables of TABLES_READ that are not on the search path (empty when all are); throws when the database does not answer. */
export async function missingTables(db: Db): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    sql`select t.name from unnest(${[...TABLES_READ]}::text[]) as t(name) where to_regclass(t.name) is null order by t.name`,
  );
  return rows.map((row) => row.name);
}
