// enrich lookup people|companies --<identifier> VALUE … [--fields …] [--json]: one lookup answered as the API
// answers it, on the local store (not audited or metered: see the README) or through a server (--url).
import { type Command, Option } from 'commander';
import { ProblemError } from '../errors.js';
import { problemDocument } from '../http/problem.js';
import { requestId } from '../http/request-id.js';
import { answerLookup } from '../lookup/answer.js';
import { COMPANY_LOOKUP, type LookupOperation, PEOPLE_LOOKUP } from '../lookup/operations.js';
import { parseLookupQuery } from '../lookup/query.js';
import { FIELDS_PARAM, parseSelection } from '../lookup/selection.js';
import {
  LOOKUP_EXIT,
  type LookupReply,
  lookupExitCode,
  type OptionValue,
  paramOfOption,
  renderLookup,
  repeatable,
  unknownParams,
} from './lookup-answer.js';
import { requireLocalStore, serverOf, withOpenStore, withStore } from './options.js';

interface LookupOptions {
  db?: string;
  json?: boolean;
  url?: string;
  token?: string;
  [attribute: string]: unknown;
}

/** The lookup's parameters: its identifier options, `--fields`, and options Commander did not know. */
function queryOf(command: Command, operation: LookupOperation): Record<string, OptionValue> {
  const opts = command.opts() as LookupOptions;
  const query: Record<string, OptionValue> = unknownParams(command.args);
  for (const option of command.options) {
    const param = paramOfOption(option.long ?? '');
    const value = opts[option.attributeName()];
    if ((operation.params.includes(param) || param === FIELDS_PARAM) && value !== undefined)
      query[param] = value as OptionValue;
  }
  return query;
}

/** A problem answered here, as the API sends it. */
const problemReply = (problem: ProblemError): LookupReply => ({
  status: problem.status,
  body: problemDocument(problem, requestId(undefined)),
});

/** The answer of the local store: the record as served, or the problem document the API would send. */
async function localReply(opts: LookupOptions, operation: LookupOperation, query: Record<string, unknown>) {
  requireLocalStore(opts);
  return withOpenStore(opts, async (store): Promise<LookupReply> => {
    try {
      const found = await answerLookup(store, operation, query);
      const likelihood = found.likelihood === undefined ? undefined : String(found.likelihood);
      return { status: 200, body: found.body.toString(), matchedBy: found.matchedBy.join(', '), likelihood };
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return problemReply(error);
    }
  });
}

/**
 * A repeated option is the API's 400, answered here: a JSON body cannot repeat a member, and the values must
 * not go into a URL. Throws the very problem the GET answers.
 */
function refuseRepeats(
  operation: LookupOperation,
  query: Record<string, OptionValue>,
): Record<string, string> {
  for (const [name, value] of Object.entries(query)) {
    if (!Array.isArray(value)) continue;
    if (name === FIELDS_PARAM) parseSelection(operation.entity, value);
    else parseLookupQuery({ [name]: value }, operation.params, [FIELDS_PARAM]);
  }
  return query as Record<string, string>;
}

async function remoteReply(
  { url, token }: { url: string; token: string },
  operation: LookupOperation,
  query: Record<string, OptionValue>,
) {
  const { remoteLookup } = await import('./lookup-remote.js');
  let params: Record<string, string>;
  try {
    params = refuseRepeats(operation, query);
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return problemReply(error);
  }
  return remoteLookup(url, token, operation, params);
}

const EXIT_CODES = `
Exit codes:
  ${LOOKUP_EXIT.found}  one record found (200)
  ${LOOKUP_EXIT.failed}  the lookup could not be made: no store, a server unreachable or failing (5xx)
  ${LOOKUP_EXIT.invalid}  not a valid lookup (400): no identifier, an unknown or repeated one, a bad value
  ${LOOKUP_EXIT.notFound}  nothing matched (404)
  ${LOOKUP_EXIT.ambiguous}  several records matched (409); each identifier's ids are listed
  ${LOOKUP_EXIT.refused}  the server refused the token or its limits (401, 402, 403, 429)`;

function registerEntity(lookup: Command, name: string, alias: string, operation: LookupOperation) {
  const command = withStore(lookup.command(name).alias(alias))
    .description(`look one ${alias} up as GET /v1${operation.path} does`)
    .addHelpText('after', EXIT_CODES)
    .allowUnknownOption()
    .allowExcessArguments();
  for (const param of operation.params) {
    const flag = `--${param.replaceAll('_', '-')} <value>`;
    command.addOption(new Option(flag, `the API's ${param}`).argParser(repeatable));
  }
  command
    .addOption(
      new Option('--fields <paths>', 'only these fields (and id), e.g. name,current_company.name').argParser(
        repeatable,
      ),
    )
    .option('--json', 'print the body exactly as the API serves it: the record, or the problem document')
    .option('--url <url>', 'look up through this server (default: $ENRICH_URL, unless --db is given)')
    .option('--token <token>', 'bearer token for --url (default: $ENRICH_TOKEN)')
    .action(async (opts: LookupOptions, self: Command) => {
      const query = queryOf(self, operation);
      // --db asks for the local store, whatever ENRICH_URL says; --url wins over both.
      const server = serverOf(opts);
      const reply =
        server === undefined
          ? await localReply(opts, operation, query)
          : await remoteReply(server, operation, query);
      const printed = renderLookup(reply, opts.json === true, `enrich lookup ${name}`);
      process.stdout.write(printed.stdout);
      process.stderr.write(printed.stderr);
      process.exitCode = lookupExitCode(reply);
    });
}

export function registerLookup(program: Command) {
  const lookup = program
    .command('lookup')
    .description('look one person or company up, as the API answers (local store, or a server with --url)')
    .addHelpText('after', EXIT_CODES);
  registerEntity(lookup, 'people', 'person', PEOPLE_LOOKUP as LookupOperation);
  registerEntity(lookup, 'companies', 'company', COMPANY_LOOKUP as LookupOperation);
}
