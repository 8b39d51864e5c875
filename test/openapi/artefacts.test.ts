// The checked-in OpenAPI document and the client's types generated from it are what the routes produce now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARTEFACTS, openapiArtefacts, repositoryPath } from '../../scripts/openapi.js';

describe('the generated artefacts', () => {
  it('are checked in as `npm run openapi` writes them', async () => {
    const generated = await openapiArtefacts();
    expect(Object.keys(generated).sort()).toEqual(Object.values(ARTEFACTS).sort());
    for (const [path, text] of Object.entries(generated)) {
      const current = readFileSync(repositoryPath(path), 'utf8');
      expect(current === text, `${path} is out of date: run npm run openapi`).toBe(true);
    }
  });
});
