import type { Config } from '../config/config.ts';
import { rootCause } from '../db/db.ts';
import { migrate } from '../db/migrate.ts';
import { openAdminPostgres } from './database.ts';
import { fail } from './output.ts';

/** `migrate`: creates the mirror node schema in an empty PostgreSQL database; leaves an importer's alone. */
export async function runMigrate(config: Config, url: string | undefined): Promise<void> {
  const target = url ?? config.databaseUrl;
  if (!target && !config.externalDatabase) fail('migrate needs DATABASE_URL or --database-url', 2);
  const { db, close } = await openAdminPostgres(config, target);
  try {
    const result = await migrate(db);
    if (result.foreignSchema) {
      process.stdout.write('The database already holds a mirror node schema made by its importer; nothing was changed.\n');
    } else {
      process.stdout.write(result.applied.length ? `Applied migrations: ${result.applied.join(', ')}\n` : 'Schema is up to date.\n');
    }
  } catch (err) {
    await close();
    fail(`migration failed: ${rootCause(err).message}`);
  }
  await close();
}
