/** Statements run one after another on a connection of their own (set-up of test servers and databases). */
import pg from 'pg';

export async function runStatements(url: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}
