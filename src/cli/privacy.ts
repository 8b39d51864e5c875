// enrich suppress | unsuppress people|companies --<identifier> VALUE: erasure requests, and undoing them.
import type { Command } from 'commander';
import { ProblemError } from '../errors.js';
import type { LookupKey } from '../identifiers/params.js';
import type { Entity } from '../vocabulary/entities.js';
import { parseEntity, withOpenStore, withStore } from './options.js';

/** Each flag and the lookup parameter it stands for; `suppressionKey` checks it fits the entity. */
const FLAGS = [
  ['id', 'id'],
  ['ln-url', 'ln_url'],
  ['ln-slug', 'ln_slug'],
  ['work-email', 'work_email'],
  ['personal-email', 'personal_email'],
  ['work-email-sha256', 'work_email_sha256'],
  ['personal-email-sha256', 'personal_email_sha256'],
  ['fqdn', 'fqdn'],
  ['website', 'website'],
  ['abn', 'abn'],
] as const;

const optionName = (flag: string) => flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

function identifierOptions(command: Command): Command {
  for (const [flag, param] of FLAGS)
    command.option(`--${flag} <value>`, `by ${param}, normalised as a lookup would`);
  return command;
}

/** The identifiers given, each normalised exactly as a lookup would; a usage error for a bad one. */
async function givenKeys(
  entity: Entity,
  opts: Record<string, unknown>,
  command: Command,
): Promise<Array<[string, LookupKey]>> {
  const { suppressionKey } = await import('../privacy/suppress.js');
  const keys: Array<[string, LookupKey]> = [];
  for (const [flag, param] of FLAGS) {
    const raw = opts[optionName(flag)];
    if (typeof raw !== 'string') continue;
    try {
      keys.push([param, suppressionKey(entity, param, raw)]);
    } catch (error) {
      const reason = error instanceof ProblemError ? error.detail : (error as Error).message;
      command.error(`error: --${flag}: ${reason}`);
    }
  }
  if (keys.length === 0)
    command.error(`error: give an identifier: ${FLAGS.map(([f]) => `--${f}`).join(', ')}`);
  return keys;
}

export function registerPrivacy(program: Command) {
  identifierOptions(withStore(program.command('suppress')))
    .description(
      'delete the records an identifier finds and keep a one-way hash of each of their identifiers, so imports skip them',
    )
    .argument('<entity>', 'people or companies', parseEntity)
    .action(async (entity: Entity, opts, command: Command) => {
      const keys = await givenKeys(entity, opts, command);
      const { applySuppression, planSuppression } = await import('../privacy/suppress.js');
      await withOpenStore(opts, async (store) => {
        for (const [param, key] of keys) {
          const plan = await planSuppression(store, entity, key);
          if (plan.ids.length > 1) {
            process.stdout.write(
              `${param} matches ${plan.ids.length} ${entity} (${plan.ids.join(', ')}): suppressing all of them.\n`,
            );
          }
          const deleted = await applySuppression(store, entity, plan);
          const what = deleted > 0 ? `${deleted} deleted (${plan.ids.join(', ')})` : `no ${entity} on file`;
          process.stdout.write(
            `Suppressed ${entity} by ${param}: ${what}; ${plan.hashes.length} identifier hash(es) kept so that imports skip them.\n`,
          );
        }
      });
    });

  identifierOptions(withStore(program.command('unsuppress')))
    .description('forget the suppressions that hold an identifier, so its records can be imported again')
    .argument('<entity>', 'people or companies', parseEntity)
    .action(async (entity: Entity, opts, command: Command) => {
      const keys = await givenKeys(entity, opts, command);
      const { liftSuppression } = await import('../privacy/suppress.js');
      await withOpenStore(opts, async (store) => {
        for (const [param, key] of keys) {
          const removed = await liftSuppression(store, entity, key);
          process.stdout.write(
            removed > 0
              ? `Unsuppressed ${entity} by ${param}: ${removed} identifier hash(es) removed; re-import the records to restore them.\n`
              : `No suppression of ${entity} holds that ${param}.\n`,
          );
        }
      });
    });
}
