// `serve --demo`: fills an empty store with a generated data set and a demo key, and says how to try it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { issueKey } from './auth/keys.js';
import { hashToken } from './auth/tokens.js';
import { README_COMPANY, README_PERSON } from './demo-records.js';
import type { Store } from './store/store.js';

/** Seed 0: the first id block, so `enrich generate` sets of any other seed import beside it. */
export const DEMO = { companies: 2_000, people: 10_000, seed: 0 };

export interface Demo {
  /** The demo token, when it is known (kept beside a SQLite file; shown once for PostgreSQL). */
  token: string | undefined;
  /** A work e-mail from the data set, for the example request. */
  workEmail: string | undefined;
  loaded: boolean;
}

/** Loads the demo set into an empty store; otherwise leaves the store alone. */
export async function prepareDemo(
  store: Store,
  dbPath: string | undefined,
  log: (line: string) => void,
): Promise<Demo> {
  const tokenFile = dbPath ? join(dirname(dbPath), 'demo-token') : undefined;
  let token: string | undefined;
  let loaded = false;
  if ((await store.count('people')) === 0 && (await store.count('companies')) === 0) {
    log(`Empty store: generating a demo set of ${DEMO.companies} companies and ${DEMO.people} people…`);
    const dir = mkdtempSync(join(tmpdir(), 'enrich-demo-'));
    try {
      // Loaded only to fill an empty store: the generator's locale data alone is about 40 MB of heap.
      const { writeDataset } = await import('./generate/index.js');
      const { importFile } = await import('./ingest/import.js');
      const { files } = await writeDataset({ ...DEMO, out: dir });
      const [companiesFile, peopleFile] = files;
      await importFile(store, 'companies', companiesFile!);
      await importFile(store, 'people', peopleFile!);
      // The README's examples look these up; they join the generated ones.
      const readmeCompanies = join(dir, 'readme-companies.ndjson');
      const readmePeople = join(dir, 'readme-people.ndjson');
      writeFileSync(readmeCompanies, `${JSON.stringify(README_COMPANY)}\n`);
      writeFileSync(readmePeople, `${JSON.stringify(README_PERSON)}\n`);
      await importFile(store, 'companies', readmeCompanies);
      await importFile(store, 'people', readmePeople);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const issued = await issueKey(store, { name: 'demo' });
    token = issued.token;
    if (tokenFile) writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    loaded = true;
  } else if (tokenFile && existsSync(tokenFile)) {
    const saved = readFileSync(tokenFile, 'utf8').trim();
    const hash = hashToken(saved);
    const key = await store.findKeyByHash(hash);
    // Not a token a rotation replaced: findKeyByHash finds the key by those too.
    if (key && key.revoked_at === null && key.hash === hash) token = saved;
  }
  return { token, workEmail: await sampleWorkEmail(store), loaded };
}

async function sampleWorkEmail(store: Store): Promise<string | undefined> {
  for await (const body of store.exportBodies('people')) {
    const person = JSON.parse(body) as { emails?: { work?: Array<{ value?: string }> | null } | null };
    const email = person.emails?.work?.[0]?.value;
    if (email) return email;
  }
  return undefined;
}

/**
 * The lines that tell a newcomer how to make a first lookup. Over HTTPS, curl is told to trust the
 * server's own certificate file, which works for a self-signed one as for one a public CA signed.
 */
export function demoInstructions(demo: Demo, baseUrl: string, tlsCert?: string): string[] {
  const email = encodeURIComponent(demo.workEmail ?? 'someone@example.com');
  const token = demo.token ?? '<your token: enrich keys create --name me>';
  const cacert = tlsCert ? ` --cacert '${tlsCert}'` : '';
  return [
    demo.token
      ? `Demo key (keep it secret): ${demo.token}`
      : 'No demo token on file; create a key with: npx enrich keys create --name me',
    'Try:',
    `  curl${cacert} -H "Authorization: Bearer ${token}" '${baseUrl}/people?work_email=${email}'`,
    `API reference: ${baseUrl}/docs`,
  ];
}
