/**
 * The statements the ten routes send while every conformance spec replays on a database, each once
 * with its values: what the plan checks (test/v2/planCheck.test.ts on the stub, test/citus/ on real
 * Citus) EXPLAIN. Setup and cleanup statements of the loader come through the same Db and are left out.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../src/db/db.ts';
import { Sql } from '../../src/db/sql.ts';
import { dbLayout, setDbLayout } from '../../src/db/layout.ts';
import { replaySpec } from '../conformance/replay.ts';
import { findSpecFiles, readSpecFile } from '../conformance/specFile.ts';

const SHARED = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'conformance');
export const SPECS = ['specs', 'specs-extra'].map((d) => join(SHARED, d)).filter((d) => existsSync(d));

export interface CapturedStatement {
  text: string;
  values: readonly unknown[];
  /** The spec file whose replay sent it first. */
  spec: string;
}

const key = (text: string, values: readonly unknown[]) =>
  `${text}\u0000${JSON.stringify(values, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;

/**
 * Replays every spec on `db` and returns each distinct (statement, values) the routes sent; `each`
 * sees every one right after its spec replayed, while the spec's rows are still in the database.
 */
export async function captureStatements(db: Db, each: (statement: CapturedStatement) => Promise<void> = async () => {}): Promise<CapturedStatement[]> {
  let captured: Array<{ text: string; values: readonly unknown[] }> = [];
  const capturing: Db = {
    ...db,
    async query<R>(statement: Sql | string, values?: readonly unknown[]): Promise<R[]> {
      const compiled = statement instanceof Sql ? statement.compile() : { text: statement, values: values ?? [] };
      if (/^\s*(select|with)\b/i.test(compiled.text) && !/\bpg_catalog\b|\bpg_class\b|to_regclass/.test(compiled.text)) {
        captured.push({ text: compiled.text, values: compiled.values });
      }
      return db.query<R>(statement, values);
    },
  };
  const layout = dbLayout(db);
  if (layout) setDbLayout(capturing, layout);
  const seen = new Set<string>();
  const statements: CapturedStatement[] = [];
  for (const root of SPECS) {
    for (const file of findSpecFiles([root])) {
      const spec = readSpecFile(file, statSync(root).isDirectory() ? resolve(root) : dirname(root));
      captured = [];
      try {
        for await (const replayed of replaySpec(capturing, spec)) void replayed;
      } catch {
        continue; // a setup the loader refuses is the conformance suite's failure, not the plan check's
      }
      for (const { text, values } of captured) {
        if (/^\s*(insert|delete|do)\b/i.test(text)) continue;
        const k = key(text, values);
        if (seen.has(k)) continue;
        seen.add(k);
        const statement = { text, values, spec: file.slice(SHARED.length + 1) };
        statements.push(statement);
        await each(statement);
      }
    }
  }
  return statements;
}
