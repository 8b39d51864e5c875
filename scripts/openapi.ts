// npm run openapi: writes the OpenAPI document and the TypeScript client's types generated from it.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { publishedDocument } from '../src/openapi/document.js';
import { openSqliteStore } from '../src/store/sqlite/store.js';

/** Each artefact's path, relative to the repository. */
export const ARTEFACTS = {
  document: 'docs/openapi.json',
  clientTypes: 'clients/typescript/src/schema.ts',
} as const;

export const repositoryPath = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** The text of each artefact, by path: the document as checked in, and what openapi-typescript makes of it. */
export async function openapiArtefacts(): Promise<Record<string, string>> {
  const store = openSqliteStore(':memory:');
  const app = await buildApp({ store, accounting: false });
  try {
    await app.ready();
    const document = publishedDocument(app);
    // As `npx openapi-typescript docs/openapi.json` writes it.
    const types = COMMENT_HEADER + astToString(await openapiTS(document as unknown as OpenAPI3));
    return {
      [ARTEFACTS.document]: `${JSON.stringify(document, null, 2)}\n`,
      [ARTEFACTS.clientTypes]: types,
    };
  } finally {
    await app.close();
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [path, text] of Object.entries(await openapiArtefacts())) {
    writeFileSync(repositoryPath(path), text);
    console.log(`wrote ${path}`);
  }
}
