// enrich migrate: applies PostgreSQL schema migrations (the embedded SQLite store migrates itself on open).
import type { Command } from 'commander';
import { connections, UsageError } from './options.js';

export function registerMigrate(program: Command) {
  program
    .command('migrate')
    .description('apply PostgreSQL schema migrations (DATABASE_URL)')
    .action(async () => {
      const url = connections().databaseUrl;
      if (!url) {
        process.stdout.write(
          'DATABASE_URL is not set: the embedded SQLite store migrates itself when opened.\n',
        );
        return;
      }
      // Loaded here: every other command starts without `pg` (see openStore).
      const { migratePostgres } = await import('../store/postgres/migrate.js');
      const { applied } = await migratePostgres(url).catch((error: Error) => {
        throw new UsageError(`migration failed: ${error.message}`);
      });
      process.stdout.write(
        applied.length ? `Applied migrations ${applied.join(', ')}.\n` : 'Already up to date.\n',
      );
    });
}
