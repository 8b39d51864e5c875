// The client's list methods against a real server: upload, progress, result, listing, delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from '../../../test/helpers/app.js';
import { Enrich } from '../src/index.js';

let t: TestApp & { url: string };
let enrich: Enrich;
beforeAll(async () => {
  t = await listeningApp();
  const key = await t.newKey({ scopes: ['people:read', 'company:read'] });
  enrich = new Enrich({ baseUrl: t.url, token: key.token });
});
afterAll(() => t.close());

describe('lists', () => {
  it('uploads a list, follows it to done, downloads its result, lists and deletes it', async () => {
    const made = await enrich.createList(
      'people',
      'Name,Email\nJane,jane.citizen@acme.com.au\nNo one,x@y.z\n',
    );
    expect(made.id).toMatch(/^ls_/);
    let job = made;
    for (let i = 0; i < 200 && job.status !== 'done' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      job = (await enrich.getList(made.id))!;
    }
    expect(job).toMatchObject({ status: 'done', rows: 2, matched: 1, not_found: 1 });
    const result = await enrich.listResult(made.id);
    expect(result.split('\n')[1]).toMatch(/^Jane,jane\.citizen@acme\.com\.au,matched,/);
    const page = await enrich.lists({ limit: 10 });
    expect(page.data.map((j) => j.id)).toContain(made.id);
    const companies = await enrich.createList('companies', '{"fqdn":"acme.com.au"}\n', {
      format: 'ndjson',
      fields: 'name',
    });
    expect(companies.format).toBe('ndjson');
    await enrich.deleteList(made.id);
    expect(await enrich.getList(made.id)).toBeNull();
  });
});
