/**
 * The statements the ten routes send while every conformance spec replays on a database, each once
 * with its values: what the plan checks (test/v2/planCheck.test.ts on the stub, test/citus/ on real
 * Citus) EXPLAIN. Setup and cleanup statements of the loader come through the same Db and are left out.
 * Each answer is compared with its spec as the conformance suite does (test/conformance/run.ts), so
 * one replay on real Citus is both the plan check and the conformance suite there.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../src/db/db.ts';
import { Sql } from '../../src/db/sql.ts';
import { dbLayout, setDbLayout } from '../../src/db/layout.ts';
import { SetupFailed, caseProblems, replaySpec } from '../conformance/replay.ts';
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

/** The replay's cases: how many answered as their spec says, and each that did not (or whose setup failed). */
export interface Conformance {
  passed: number;
  failures: string[];
}

/**
 * Replays every spec on `db` and returns each distinct (statement, values) the routes sent, and how
 * the answers compared with the specs; `each` sees every statement right after its spec replayed,
 * while the spec's rows are still in the database.
 */
export async function captureStatements(
  db: Db,
  each: (statement: CapturedStatement) => Promise<void> = async () => {},
): Promise<{ statements: CapturedStatement[]; conformance: Conformance }> {
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
  const conformance: Conformance = { passed: 0, failures: [] };
  for (const root of SPECS) {
    for (const file of findSpecFiles([root])) {
      const spec = readSpecFile(file, statSync(root).isDirectory() ? resolve(root) : dirname(root));
      const name = file.slice(SHARED.length + 1);
      captured = [];
      try {
        for await (const { label, testCase, response } of replaySpec(capturing, spec)) {
          const problems = caseProblems(response, testCase, spec);
          if (problems.length === 0) conformance.passed++;
          else conformance.failures.push(`${name}${label ? ` [${label}]` : ''} GET ${testCase.url}\n  ${problems.join('\n  ')}`);
        }
      } catch (err) {
        if (!(err instanceof SetupFailed)) throw err;
        conformance.failures.push(`${name}: ${err.message} (${err.cases} cases)`);
        continue;
      }
      for (const { text, values } of captured) {
        if (/^\s*(insert|delete|do)\b/i.test(text)) continue;
        const k = key(text, values);
        if (seen.has(k)) continue;
        seen.add(k);
        const statement = { text, values, spec: name };
        statements.push(statement);
        await each(statement);
      }
    }
  }
  return { statements, conformance };
}
