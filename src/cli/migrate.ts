import type { Config } from '../config/config.ts';
import { rootCause } from '../db/db.ts';
import { describeLayout, detectLayout } from '../db/layout.ts';
import { addRecommendedIndexes, migrate } from '../db/migrate.ts';
import { openAdminPostgres } from './database.ts';
import { fail } from './output.ts';

/**
 * `migrate`: creates the mirror node schema in an empty PostgreSQL database; leaves an importer's
 * alone, unless asked (--recommended-indexes) to add the service's recommended indexes to it.
 */
export async function runMigrate(config: Config, url: string | undefined, recommendedIndexes: boolean): Promise<void> {
  const target = url ?? config.databaseUrl;
  if (!target && !config.externalDatabase) fail('migrate needs DATABASE_URL or --database-url', 2);
  const { db, close } = await openAdminPostgres(config, target);
  try {
    process.stdout.write(`Found ${describeLayout(await detectLayout(db))}.\n`);
    const result = await migrate(db);
    if (result.foreignSchema && recommendedIndexes) {
      const statements = await addRecommendedIndexes(db);
      const shown = statements.length > 12 ? [...statements.slice(0, 12), `... ${statements.length - 12} more`] : statements;
      process.stdout.write(`The database's schema was made by its importer; the recommended indexes are in place:\n${shown.map((sql) => `  ${sql}\n`).join('')}`);
    } else if (result.foreignSchema) {
      process.stdout.write('The database already holds a mirror node schema made by its importer; nothing was changed (see --recommended-indexes).\n');
    } else {
      process.stdout.write(result.applied.length ? `Applied migrations: ${result.applied.join(', ')}\n` : 'Schema is up to date.\n');
    }
  } catch (err) {
    await close();
    fail(`migration failed: ${rootCause(err).message}`);
  }
  await close();
}
