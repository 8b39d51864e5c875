// The `enrich` command: one file per command group, errors as one line on stderr with exit code 1.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { maskSecrets } from '../config.js';
import { registerAudit } from './audit.js';
import { registerBackup } from './backup.js';
import { registerChanges } from './changes.js';
import { registerData } from './data.js';
import { registerEvolve } from './evolve.js';
import { registerGenerate } from './generate.js';
import { registerKeys } from './keys.js';
import { registerLookup } from './lookup.js';
import { registerMatch } from './match.js';
import { registerMigrate } from './migrate.js';
import { acceptGlobalOptions, isBrokenPipe, STORE_HELP, UsageError } from './options.js';
import { registerPrivacy } from './privacy.js';
import { registerServe } from './serve.js';
import { registerUsage } from './usage.js';
import { registerWebhooks } from './webhooks.js';

/** The package's version, read where it is installed (dist/cli and src/cli are both two levels down). */
function packageVersion(): string {
  const manifest = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

/** After a usage error each command prints one line pointing at its own help, not the whole of it. */
function hintAfterErrors(command: Command, path = command.name()): void {
  command.showHelpAfterError(`Run "${path} --help" for usage.`);
  for (const sub of command.commands) hintAfterErrors(sub, `${path} ${sub.name()}`);
}

// A reader that stops early (`enrich export people | head`) closes the pipe: the rest of the output
// has nowhere to go, which is what the reader asked for, not a failure.
process.stdout.on('error', (error) => {
  if (!isBrokenPipe(error)) throw error;
});

const program = acceptGlobalOptions(
  new Command('enrich')
    .description('Enrich: self-hosted people and company enrichment')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride(),
).addHelpText('after', STORE_HELP);

registerServe(program);
registerGenerate(program);
registerEvolve(program);
registerData(program);
registerLookup(program);
registerMatch(program);
registerKeys(program);
registerUsage(program);
registerAudit(program);
registerChanges(program);
registerPrivacy(program);
registerWebhooks(program);
registerBackup(program);
registerMigrate(program);
hintAfterErrors(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (isBrokenPipe(error)) {
    process.exitCode = 0;
  } else if (error instanceof UsageError || (error as Error).name === 'DatabaseNotMigratedError') {
    process.stderr.write(`enrich: ${maskSecrets((error as Error).message)}\n`);
    process.exitCode = 1;
  } else {
    // Whatever a driver put in its message, no password of DATABASE_URL, DATABASE_READ_URL or REDIS_URL.
    process.stderr.write(`enrich: ${maskSecrets((error as Error).message ?? String(error))}\n`);
    if (process.env.ENRICH_DEBUG) process.stderr.write(`${maskSecrets(String((error as Error).stack))}\n`);
    process.exitCode = 1;
  }
}
