// The client's feed of changes against the real app over a change log kept in memory: pages, the iterator that
// follows `next`, long polls, and the 410 of a cursor past retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderEvent } from '../../../src/changes/render.js';
import { type TestApp, testApp } from '../../../test/helpers/app.js';
import { companyUpdated, created, joined, MemoryChanges } from '../../../test/helpers/memory-changes.js';
import { Enrich, EnrichError } from '../src/index.js';

let t: TestApp;
let log: MemoryChanges;
let enrich: Enrich;
beforeAll(async () => {
  log = new MemoryChanges();
  t = await testApp('sqlite', { changes: log });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { token } = await t.newKey({ scopes: ['changes:read'] });
  enrich = new Enrich({ baseUrl: url, token, timeoutMs: 5000 });
});
afterAll(() => t?.close());

describe('changes', () => {
  it('reads a page of events of the types asked for, and the cursor of the next', async () => {
    const logged = log.append([created('fp1'), joined('fp1', 'f1'), companyUpdated('f1', ['name'])]);
    const page = await enrich.changes({ types: ['person.job_changed', 'company.updated'], limit: 1 });
    expect(page.data).toEqual([renderEvent(logged[1]!)]);
    expect(page.has_more).toBe(true);
    const next = await enrich.changes({ after: page.next, types: ['person.job_changed', 'company.updated'] });
    expect(next.data).toEqual([renderEvent(logged[2]!)]);
    expect(next.has_more).toBe(false);
  });

  it('iterates over every event, page after page, telling where to resume', async () => {
    const seen: string[] = [];
    const cursors: string[] = [];
    for await (const event of enrich.changesAll({ limit: 2, onPage: (next) => cursors.push(next) })) {
      seen.push(event.id);
    }
    const all = (await enrich.changes({ limit: 1000 })).data;
    expect(seen).toEqual(all.map((event) => event.id));
    expect(cursors).toHaveLength(Math.ceil(all.length / 2));
    expect((await enrich.changes({ after: cursors.at(-1)! })).data).toEqual([]);
  });

  it('follows the feed as events arrive, until aborted', async () => {
    const { next } = await enrich.changes({ limit: 1000 });
    const stop = new AbortController();
    setTimeout(() => log.append([created('fp2')]), 200);
    setTimeout(() => log.append([created('fp3')]), 400);
    const seen: string[] = [];
    for await (const event of enrich.changesAll(
      { after: next, follow: true, wait: 5 },
      { signal: stop.signal },
    )) {
      seen.push((event.data as { person_id: string }).person_id);
      if (seen.length === 2) stop.abort();
    }
    expect(seen).toEqual(['fp2', 'fp3']);
  });

  it('throws `gone` for a cursor older than the log keeps', async () => {
    const { next } = await enrich.changes({ limit: 1 });
    log.append([created('fp4')]);
    await log.pruneChanges(new Date(Date.now() + 1000));
    log.append([created('fp5')]);
    const error = await enrich.changes({ after: next }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnrichError);
    expect([(error as EnrichError).status, (error as EnrichError).code]).toEqual([410, 'gone']);
  });
});
