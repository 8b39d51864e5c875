// The `enrich` command: one file per command group, errors as one line on stderr with exit code 1.
import { Command, CommanderError } from 'commander';
import { registerAudit } from './audit.js';
import { registerData } from './data.js';
import { registerGenerate } from './generate.js';
import { registerKeys } from './keys.js';
import { registerMatch } from './match.js';
import { registerMigrate } from './migrate.js';
import { UsageError } from './options.js';
import { registerPrivacy } from './privacy.js';
import { registerServe } from './serve.js';
import { registerUsage } from './usage.js';

const program = new Command('enrich')
  .description('Enrich: self-hosted people and company enrichment')
  .showHelpAfterError()
  .exitOverride();

registerServe(program);
registerGenerate(program);
registerData(program);
registerMatch(program);
registerKeys(program);
registerUsage(program);
registerAudit(program);
registerPrivacy(program);
registerMigrate(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof UsageError || (error as Error).name === 'DatabaseNotMigratedError') {
    process.stderr.write(`enrich: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`enrich: ${(error as Error).message ?? String(error)}\n`);
    if (process.env.ENRICH_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  }
}
