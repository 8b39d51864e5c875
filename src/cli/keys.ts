// enrich keys create | list | show | update | rotate | revoke (contract §7, and the key lifecycle of issue 4).
import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_RATE, issueKey, parseDuration, parseScopes, publicKey, rotateKey } from '../auth/keys.js';
import type { KeyChanges } from '../store/keys.js';
import type { Scope } from '../vocabulary/operations.js';
import { describeKey, knownKey } from './key-report.js';
import { UsageError, wholeNumber, withOpenStore, withReportStore, withStore } from './options.js';
import { formatTable } from './table.js';

function parseFutureDate(value: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError('expected an ISO date such as 2027-01-31 or 2027-01-31T12:00:00Z');
  }
  if (date.getTime() <= Date.now()) throw new InvalidArgumentError('the expiry date is in the past');
  return date;
}

// Commander turns an option parser's null into '': `never` and `none` stay words until the action.
/** `--expires` of keys update: a future date, or `never` to remove the expiry. */
const expiryOption = (value: string) => (value === 'never' ? value : parseFutureDate(value));

/** `--quota` of keys update: a whole number ≥ 1, or `none` to remove the quota. */
const quotaOption = (value: string) => (value === 'none' ? value : wholeNumber(1)(value));

/** The changes `keys update` asks for: a removed quota, search quota or expiry is null, an option not given undefined. */
function keyChanges(opts: {
  name?: string;
  rate?: number;
  quota?: number | 'none';
  searchQuota?: number | 'none';
  scopes?: Scope[];
  expires?: Date | 'never';
}): KeyChanges {
  const { name, rate, quota, searchQuota, scopes, expires } = opts;
  return {
    name,
    rate,
    quota: quota === 'none' ? null : quota,
    search_quota: searchQuota === 'none' ? null : searchQuota,
    scopes,
    expires_at: expires === 'never' ? null : expires?.toISOString(),
  };
}

function nameOption(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected a non-empty name');
  return value;
}

function durationOption(value: string) {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function scopesOption(value: string) {
  try {
    return parseScopes(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function registerKeys(program: Command) {
  const keys = program.command('keys').description('issue, list, show, update, rotate and revoke API keys');

  withStore(keys.command('create'))
    .description('create a key; prints the token, once, as the last line of stdout')
    .requiredOption('--name <name>', 'who or what the key is for')
    .option(
      '--scopes <list>',
      'comma-separated, of people:read,company:read,changes:read,changes:write,admin (default: people:read,company:read)',
      scopesOption,
    )
    .option('--rate <n>', `requests per second (default ${DEFAULT_RATE})`, wholeNumber(1))
    .option('--quota <n>', 'matched lookups per calendar month (default: none)', wholeNumber(1))
    .option(
      '--search-quota <n>',
      'search results (previews) per calendar month (default: none)',
      wholeNumber(1),
    )
    .option('--expires <date>', 'expiry date (ISO 8601)', parseFutureDate)
    .action(async (opts) => {
      await withOpenStore(opts, async (store) => {
        const { key, token } = await issueKey(store, {
          name: opts.name,
          scopes: opts.scopes,
          rate: opts.rate ?? (Number(process.env.ENRICH_DEFAULT_RATE) || undefined),
          quota: opts.quota ?? null,
          searchQuota: opts.searchQuota ?? null,
          expiresAt: opts.expires ?? null,
        });
        process.stdout.write(
          `Created key ${key.id} "${key.name}": scopes ${key.scopes.join(',')}, rate ${key.rate}/s, quota ${key.quota ?? 'none'}, search quota ${key.search_quota ?? 'none'}, expires ${key.expires_at ?? 'never'}.\n` +
            'The token is shown only this once:\n' +
            `${token}\n`,
        );
      });
    });

  withStore(keys.command('list'))
    .description('list keys (never their tokens)')
    .option('--json', 'print a JSON array')
    .action(async (opts) => {
      await withOpenStore(opts, async (store) => {
        const all = (await store.listKeys()).map(publicKey);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
          return;
        }
        if (all.length === 0) {
          process.stdout.write('No keys. Create one with: enrich keys create --name NAME\n');
          return;
        }
        const rows = all.map((k) => [
          k.id,
          k.name,
          k.scopes.join(','),
          `${k.rate}/s`,
          String(k.quota ?? '-'),
          k.created_at.slice(0, 19),
          k.expires_at?.slice(0, 19) ?? '-',
          k.revoked_at ? `revoked ${k.revoked_at.slice(0, 19)}` : 'active',
        ]);
        const header = ['ID', 'NAME', 'SCOPES', 'RATE', 'QUOTA', 'CREATED', 'EXPIRES', 'STATUS'];
        process.stdout.write(formatTable(header, rows));
      });
    });

  withStore(keys.command('show'))
    .description("a key's settings and its usage this month (never its token)")
    .argument('<id>', 'key id, as keys list shows it')
    .option('--json', 'print JSON')
    .action(async (id: string, opts) => {
      await withReportStore(opts, async (store) => {
        const report = await describeKey(store, id);
        process.stdout.write(opts.json ? `${JSON.stringify(report.json, null, 2)}\n` : report.text);
      });
    });

  withStore(keys.command('update'))
    .description("change a key's name, rate, quota, search quota, scopes or expiry; its token stays the same")
    .argument('<id>', 'key id, as keys list shows it')
    .option('--name <name>', 'who or what the key is for', nameOption)
    .option('--rate <n>', 'requests per second', wholeNumber(1))
    .option('--quota <n>', 'matched lookups per calendar month, or none', quotaOption)
    .option('--search-quota <n>', 'search results (previews) per calendar month, or none', quotaOption)
    .option(
      '--scopes <list>',
      'comma-separated, of people:read,company:read,changes:read,changes:write,admin',
      scopesOption,
    )
    .option('--expires <date>', 'expiry date (ISO 8601), or never', expiryOption)
    .option('--json', 'print the updated key as JSON')
    .action(async (id: string, opts, command: Command) => {
      const changes = keyChanges(opts);
      if (Object.values(changes).every((value) => value === undefined)) {
        command.error(
          'error: give at least one of --name, --rate, --quota, --search-quota, --scopes or --expires',
        );
      }
      await withReportStore(opts, async (store) => {
        await knownKey(store, id);
        if (!(await store.updateKey(id, changes)))
          throw new UsageError(`key ${id} is revoked: its settings cannot change`);
        const report = await describeKey(store, id);
        process.stdout.write(
          opts.json ? `${JSON.stringify(report.json, null, 2)}\n` : `Updated key ${id}.\n${report.text}`,
        );
      });
    });

  withStore(keys.command('rotate'))
    .description('give a key a new token; the old one keeps working for the grace period, then answers 401')
    .argument('<id>', 'key id, as keys list shows it')
    .option(
      '--grace <duration>',
      'how long the old token keeps working: 30m, 24h, 7d; 0 for none',
      durationOption,
    )
    .action(async (id: string, opts) => {
      const graceMs: number = opts.grace ?? 24 * 3_600_000;
      await withOpenStore(opts, async (store) => {
        await knownKey(store, id);
        const rotated = await rotateKey(store, id, graceMs);
        if (!rotated) throw new UsageError(`key ${id} is revoked: it cannot be rotated`);
        const until = rotated.key.previous_expires_at;
        process.stdout.write(
          `Rotated key ${id}: the old token ${graceMs > 0 ? `works until ${until}` : 'no longer works'}.\n` +
            'The new token is shown only this once:\n' +
            `${rotated.token}\n`,
        );
      });
    });

  withStore(keys.command('revoke'))
    .description('revoke a key; effective on its next request')
    .argument('<id>', 'key id, as keys list shows it')
    .action(async (id: string, opts) => {
      await withOpenStore(opts, async (store) => {
        await knownKey(store, id);
        if (!(await store.revokeKey(id, new Date()))) throw new UsageError(`key ${id} is revoked already`);
        process.stdout.write(`Revoked key ${id}.\n`);
      });
    });
}
