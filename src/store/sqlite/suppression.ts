// The suppression role on SQLite: records deleted as any record write (./record-writes.ts), with the hashes
// that keep them out written in the same transaction.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Entity } from '../../vocabulary/entities.js';
import { SQLITE } from '../sql/spelling.js';
import { suppressionStatements } from '../sql/suppression.js';
import type { SuppressionStore } from '../suppression.js';
import { numbered } from './numbered.js';
import type { SqliteRecordWrites } from './record-writes.js';
import type { TurnSnapshot } from './snapshot.js';

const SQL = suppressionStatements(SQLITE);

function prepare(db: Database.Database) {
  return {
    add: db.prepare<[Record<number, unknown>]>(SQL.add),
    removeGroups: db.prepare<[Record<number, unknown>]>(SQL.removeGroups),
    hashes: db.prepare<[Record<number, unknown>], string>(SQL.hashes).pluck(),
  };
}

export class SqliteSuppression implements SuppressionStore {
  private readonly statements: ReturnType<typeof prepare>;

  constructor(
    db: Database.Database,
    private readonly writes: SqliteRecordWrites,
    private readonly snapshot: TurnSnapshot,
  ) {
    this.statements = prepare(db);
  }

  async suppress(entity: Entity, recordIds: string[], hashes: string[]): Promise<number> {
    this.snapshot.end();
    const group = randomUUID();
    return this.writes.delete(entity, recordIds, 'suppressed', () => {
      for (const hash of hashes) this.statements.add.run(numbered(entity, hash, group));
    });
  }

  async unsuppress(entity: Entity, hash: string): Promise<number> {
    this.snapshot.end();
    return this.statements.removeGroups.run(numbered(entity, hash)).changes;
  }

  async suppressedHashes(entity: Entity): Promise<Set<string>> {
    return new Set(this.statements.hashes.all(numbered(entity)));
  }
}
