// The statements of the suppression role, written once for both stores.
import type { RowColumn, Spelling } from './spelling.js';

const COLUMNS: readonly RowColumn[] = [
  ['entity', 'text'],
  ['hash', 'text'],
  ['grp', 'text'],
];

export const suppressionStatements = (s: Spelling) => ({
  /** A suppression is a group of hashes (`grp`), written with the records it deletes. */
  add: `INSERT INTO suppressions (entity, hash, grp) ${s.rows(COLUMNS)} ON CONFLICT DO NOTHING`,
  // Forgetting one hash of a suppression forgets the whole group.
  removeGroups: `DELETE FROM suppressions WHERE entity = $1
                 AND grp IN (SELECT grp FROM suppressions WHERE entity = $1 AND hash = $2)`,
  hashes: 'SELECT DISTINCT hash FROM suppressions WHERE entity = $1',
});
