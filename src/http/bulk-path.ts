// POST /v1/{people,company}/bulk: admitted as every keyed request is, its body read once the key is live,
// then by content type either a JSON list of up to 1,000 items answered in one response, or an NDJSON
// stream answered line by line (bulk-stream.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireScopes } from '../auth/authenticate.js';
import { ProblemError } from '../errors.js';
import { emptySummary } from '../lookup/bulk.js';
import { parseBulkBody, tooManyItems } from '../lookup/bulk-request.js';
import { givenParams } from '../lookup/item.js';
import { MAX_ITEMS } from '../schemas/bulk.js';
import type { MaybePromise } from '../store/maybe-promise.js';
import type { Gate } from './admission.js';
import { lookupBatch } from './bulk-batch.js';
import { BulkCall, type BulkDeps, type BulkOperation } from './bulk-call.js';
import { ResultWriter } from './bulk-results.js';
import { streamBulk } from './bulk-stream.js';
import { BodyBuilder } from './bytes.js';
import { parseJsonText } from './json-syntax.js';
import { readBody } from './request-body.js';

/** A JSON bulk's body limit: 1,000 items with generous params fit several times over. */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;
export const JSON_TYPE = 'application/json; charset=utf-8';
export const NDJSON = 'application/x-ndjson';
const ACCEPTED_TYPES = ['application/json', NDJSON];

/** Which kind of bulk the request's body is, by its Content-Type; a 415 for any other (or an encoded body). */
function bodyKind(request: FastifyRequest): 'json' | 'stream' {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new ProblemError(
      'unsupported_media_type',
      'A compressed body (Content-Encoding) is not accepted; send it uncompressed.',
      { accepted: ACCEPTED_TYPES },
    );
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === NDJSON) return 'stream';
  const given =
    type === '' ? 'No Content-Type was given' : `Content-Type "${type.slice(0, 100)}" is not accepted`;
  throw new ProblemError(
    'unsupported_media_type',
    `${given}: send application/json (1 to ${MAX_ITEMS.toLocaleString('en')} items) or ${NDJSON} (a stream, one item per line).`,
    { accepted: ACCEPTED_TYPES },
  );
}

/** A JSON bulk's body, read and checked. */
async function readJson(call: BulkCall): Promise<void> {
  const tooLarge = () =>
    tooManyItems(`The body is larger than ${MAX_JSON_BYTES / 1024 / 1024} MiB`, MAX_ITEMS, {
      max_bytes: MAX_JSON_BYTES,
    });
  const body = await readBody(call.req, MAX_JSON_BYTES, tooLarge).finally(() => {
    call.bodyRead = call.req.readableEnded;
  });
  call.bulk = parseBulkBody(parseJsonText(body.toString('utf8')));
}

/**
 * Once the key is live, before it is charged: its scope (a key that may not look up this entity sends no
 * body to be read), the body's kind, and a JSON bulk's items read (its cost), or a stream's `fields`
 * checked (it reads its lines as it answers them).
 */
function readRequest(call: BulkCall): MaybePromise<void> {
  requireScopes(call.key!, [call.operation.lookup.scope]);
  call.kind = bodyKind(call.request);
  if (call.kind === 'json') return readJson(call);
  call.selection = call.fieldSelection(undefined);
}

/** A bulk's admission: the scope of its lookup, a token per item (a stream: one to begin), no quota yet. */
const gateOf = (operation: BulkOperation): Gate<BulkCall> => ({
  scopes: [operation.lookup.scope],
  // Items meet the quota batch by batch: those past it are answered as such, the rest still served.
  quota: false,
  rateDetail: (rate) => `This key allows ${rate} lookups per second; each item of a bulk counts as one.`,
  afterLive: readRequest,
  cost: (call) => call.bulk?.items.length ?? 1,
});

/** A JSON bulk, admitted: looked up, answered in one response. */
async function answerJson(call: BulkCall): Promise<void> {
  const bulk = call.bulk!;
  const { lookup } = call.operation;
  const writer = new ResultWriter(call.id, call.fieldSelection(bulk.fields));
  const items = bulk.items.map(({ params }) => ({ params, given: givenParams(lookup, params) }));
  const { outcomes, quotaRemaining } = await lookupBatch(call, items);
  if (quotaRemaining !== undefined) call.headers['enrich-quota-remaining'] = String(quotaRemaining);
  const out = new BodyBuilder();
  const summary = emptySummary();
  out.text('{"results":[');
  for (let i = 0; i < outcomes.length; i++) {
    const outcome = outcomes[i]!;
    if (i > 0) out.text(',');
    writer.write(out, bulk.items[i]!.ref, outcome);
    summary[outcome.status]++;
  }
  out.text(`],"summary":${JSON.stringify(summary)}}`);
  call.reply(200, JSON_TYPE, out.take());
}

/** Serves the bulk routes of both operations. */
export class BulkPath {
  /** How to end each stream in progress early. */
  private readonly streams = new Set<() => void>();
  private readonly gates = new Map<BulkOperation, Gate<BulkCall>>();

  constructor(private readonly deps: BulkDeps) {}

  /** The server is closing: streams end after the results already sent, with a last line saying so. */
  close(): void {
    for (const stop of this.streams) stop();
  }

  /** Answers one bulk request; the reply is written here, not by Fastify. */
  handle(request: FastifyRequest, reply: FastifyReply, operation: BulkOperation): void {
    reply.hijack();
    const call = new BulkCall(this.deps, request, reply, operation);
    this.answer(call)
      .catch((error: unknown) => (call.gone ? undefined : call.fail(error)))
      .catch((error: unknown) => {
        this.deps.requests.failed(error, call.route, call.id, 'bulk reply failed');
        call.res.destroy();
      });
  }

  private async answer(call: BulkCall): Promise<void> {
    const gate = this.gateOf(call.operation);
    await this.deps.admission.admit(call, gate);
    if (call.kind === 'stream') await streamBulk(call, gate, this.streams);
    else await answerJson(call);
  }

  private gateOf(operation: BulkOperation): Gate<BulkCall> {
    let gate = this.gates.get(operation);
    if (gate === undefined) {
      gate = gateOf(operation);
      this.gates.set(operation, gate);
    }
    return gate;
  }
}
