// Matches rows through a server's bulk API (`POST /v1/people/bulk`, `/v1/company/bulk`): chunks of up to 1,000
// rows, two in flight. Once the server says the key's quota is used up, later rows are not sent.
import { BulkClient, type BulkClientOptions, type BulkItem, type BulkResult } from './bulk-client.js';
import { MATCH_STATUSES, type MatchStatus, type Resolver, type RowOutcome } from './list.js';
import { MALFORMED } from './local.js';

/** The bulk API's largest request. */
export const BULK_MAX_ITEMS = 1000;

/** A row not sent once the server has said the key's quota is used up. */
const QUOTA_EXCEEDED: RowOutcome = {
  status: 'quota_exceeded',
  problem: "Not sent: the server said this key's monthly quota is used up.",
};

function rowOutcome(result: BulkResult): RowOutcome {
  if (result.status === 'matched' && result.record) {
    const { id } = result.record;
    const likelihood = result.match_likelihood;
    return {
      status: 'matched',
      matchedBy: result.matched_by ?? [],
      ...(typeof id === 'string' ? { id } : {}),
      ...(typeof likelihood === 'number' ? { likelihood } : {}),
      record: { value: result.record },
    };
  }
  // A status this client does not know (or a match without its record) is nothing it can write as a match.
  const known = (MATCH_STATUSES as readonly string[]).includes(result.status) && result.status !== 'matched';
  const status = known ? (result.status as MatchStatus) : 'invalid';
  const problem = result.problem?.detail;
  return status === 'not_found' || typeof problem !== 'string' ? { status } : { status, problem };
}

export function remoteResolver(options: BulkClientOptions): Resolver {
  const client = new BulkClient(options);
  let sent = 0;
  let quotaUsedUp = false;
  return {
    chunkSize: BULK_MAX_ITEMS,
    inFlight: 2,
    resolve(params) {
      if (quotaUsedUp) return params.map((given) => (given ? QUOTA_EXCEEDED : MALFORMED));
      const items: BulkItem[] = [];
      for (const given of params) if (given) items.push({ params: given, ref: `row-${++sent}` });
      if (items.length === 0) return params.map(() => MALFORMED);
      return client.send(items).then((results) => {
        let next = 0;
        return params.map((given) => {
          if (!given) return MALFORMED;
          const outcome = rowOutcome(results[next++]!);
          if (outcome.status === 'quota_exceeded') quotaUsedUp = true;
          return outcome;
        });
      });
    },
  };
}
