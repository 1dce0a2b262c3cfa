/**
 * The data of a reference spec file (../shared/conformance/<path>) in a test's database: route tests
 * start from the rows the reference's own tests use, loaded as the conformance replay loads them.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../src/db/db.ts';
import { loadSetup } from '../conformance/loader.ts';
import { bigJson } from '../conformance/specFile.ts';

const CONFORMANCE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'conformance');

export async function loadSpecSetup(db: Db, specPath: string): Promise<void> {
  const { setup } = bigJson.parse(readFileSync(join(CONFORMANCE, specPath), 'utf8')) as { setup: Record<string, unknown> };
  await loadSetup({ query: async (text, values) => ({ rows: await db.query<Record<string, unknown>>(text, values ?? []) }) }, setup);
}
