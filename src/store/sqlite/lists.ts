// The lists role on SQLite: the shared statements (../sql/lists.ts); a claim is one write transaction, so two
// processes over one file never take the same job.
import type Database from 'better-sqlite3';
import type { ListEnd, ListJob, ListProgress, ListStore, NewListJob } from '../lists.js';
import { advanceValues, listStatements, waiting } from '../sql/lists.js';
import { SQLITE } from '../sql/spelling.js';
import { numbered } from './numbered.js';
import type { TurnSnapshot } from './snapshot.js';

const SQL = listStatements(SQLITE);

type Params = [Record<number, unknown>];

function prepare(db: Database.Database) {
  return {
    create: db.prepare<Params>(SQL.create),
    get: db.prepare<Params, ListJob>(SQL.get),
    page: db.prepare<Params, ListJob>(SQL.page),
    pageAfter: db.prepare<Params, ListJob>(SQL.pageAfter),
    delete: db.prepare<Params>(SQL.delete),
    waiting: db
      .prepare<Params, string>(`SELECT id FROM lists WHERE ${waiting('$1')} ORDER BY created_at, id LIMIT 1`)
      .pluck(),
    take: db.prepare<Params, ListJob>(SQL.take('$4')),
    advance: db.prepare<Params>(SQL.advance),
    finish: db.prepare<Params>(SQL.finish),
    release: db.prepare<Params>(SQL.release),
    prune: db.prepare<Params, string>(SQL.prune).pluck(),
  };
}

export class SqliteLists implements ListStore {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly claimOnce: (owner: string, now: string, leaseUntil: string) => ListJob | undefined;

  constructor(
    db: Database.Database,
    private readonly snapshot: TurnSnapshot,
  ) {
    const s = prepare(db);
    this.statements = s;
    const claim = db.transaction((owner: string, now: string, leaseUntil: string) => {
      const id = s.waiting.get(numbered(now));
      return id === undefined ? undefined : s.take.get(numbered(owner, leaseUntil, now, id));
    });
    this.claimOnce = (owner, now, leaseUntil) => claim.immediate(owner, now, leaseUntil);
  }

  /** A write: this turn's read snapshot ended first. */
  private write<T>(write: () => T): T {
    this.snapshot.end();
    return write();
  }

  async createList(job: NewListJob): Promise<void> {
    const { id, key_id, entity, format, options, mapping, created_at, expires_at } = job;
    this.write(() =>
      this.statements.create.run(
        numbered(id, key_id, entity, format, options, mapping, created_at, expires_at),
      ),
    );
  }

  async getList(keyId: string, id: string): Promise<ListJob | undefined> {
    return this.statements.get.get(numbered(keyId, id));
  }

  async listLists(keyId: string, page: { after?: string | undefined; limit: number }): Promise<ListJob[]> {
    return page.after === undefined
      ? this.statements.page.all(numbered(keyId, page.limit))
      : this.statements.pageAfter.all(numbered(keyId, page.limit, page.after));
  }

  async deleteList(keyId: string, id: string): Promise<boolean> {
    return this.write(() => this.statements.delete.run(numbered(keyId, id)).changes > 0);
  }

  /**
   * Looked for by a read first: the claim's write transaction only when a job waits, so that a server's poll
   * does not wait for SQLite's write lock while a refresh holds it.
   */
  async claimList(owner: string, now: string, leaseUntil: string): Promise<ListJob | undefined> {
    if (this.statements.waiting.get(numbered(now)) === undefined) return undefined;
    return this.write(() => this.claimOnce(owner, now, leaseUntil));
  }

  async advanceList(
    id: string,
    owner: string,
    progress: ListProgress & { rows: number | null },
    leaseUntil: string,
  ): Promise<boolean> {
    const values = numbered(id, owner, ...advanceValues(progress, leaseUntil));
    return this.write(() => this.statements.advance.run(values).changes > 0);
  }

  async finishList(id: string, owner: string, end: ListEnd): Promise<boolean> {
    const values = numbered(id, owner, end.status, end.problem, end.finished_at, end.expires_at);
    return this.write(() => this.statements.finish.run(values).changes > 0);
  }

  async releaseList(id: string, owner: string): Promise<void> {
    this.write(() => this.statements.release.run(numbered(id, owner)));
  }

  async pruneLists(now: string): Promise<string[]> {
    return this.write(() => this.statements.prune.all(numbered(now)));
  }
}
