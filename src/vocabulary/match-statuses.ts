// How a row of a matched list ended: \`enrich match\`'s \`enrich_status\`, and a list job's counts.

/** How a row ended. \`quota_exceeded\` only in remote mode: the server's monthly quota ran out first. */
export type MatchStatus = 'matched' | 'not_found' | 'ambiguous' | 'invalid' | 'quota_exceeded';

export const MATCH_STATUSES: readonly MatchStatus[] = [
  'matched',
  'not_found',
  'ambiguous',
  'invalid',
  'quota_exceeded',
];
