// Suppressions (admin): a person or company removed for good by an identifier — what it will delete shown
// first, then confirmed — checked, and lifted again.
import { api, query } from '../api.js';
import { announce, field, fill, h, select, table } from '../dom.js';
import type { Page } from './page.js';

const PARAMS: Record<string, string[]> = {
  people: [
    'id',
    'work_email',
    'personal_email',
    'ln_url',
    'ln_slug',
    'work_email_sha256',
    'personal_email_sha256',
  ],
  companies: ['id', 'fqdn', 'website', 'abn', 'ln_url', 'ln_slug'],
};

interface SuppressionResult {
  dry_run: boolean;
  suppressed: Array<{ parameter: string; record_ids: string[]; hashes: number }>;
}

export const suppressionsPage: Page = {
  path: 'suppressions',
  title: 'Suppressions',
  scopes: ['admin'],
  async render(into) {
    const counts = h('p', { id: 'suppression-counts' });
    const showCounts = async () => {
      const { hashes } = await api<{ hashes: Record<string, number> }>('GET', '/v1/admin/suppressions');
      counts.textContent = `Identifier hashes kept: ${Object.entries(hashes)
        .map(([e, n]) => `${e} ${n}`)
        .join(', ')}.`;
    };
    const entity = select('entity', ['people', 'companies']);
    const parameter = select('parameter', PARAMS.people!);
    entity.addEventListener('change', () =>
      parameter.replaceChildren(...select('p', PARAMS[entity.value]!).options),
    );
    const value = h('input', { name: 'value', required: true });
    const outcome = h('div', { 'aria-live': 'polite' });
    const body = (dry: boolean) => ({
      entity: entity.value,
      [parameter.value]: value.value.trim(),
      dry_run: dry,
    });
    const suppress = async () => {
      if (!confirm('Suppress? The records are deleted from the store now, and kept out of later imports.'))
        return;
      const done = await api<SuppressionResult>('POST', '/v1/admin/suppressions', body(false));
      const deleted = done.suppressed.flatMap((s) => s.record_ids);
      outcome.replaceChildren(
        h('p', {}, `Suppressed: ${deleted.length} record${deleted.length === 1 ? '' : 's'} deleted.`),
      );
      announce('Suppressed.');
      await showCounts();
    };
    const preview = h(
      'form',
      { class: 'card', 'aria-labelledby': 'add-title' },
      h('h2', { id: 'add-title' }, 'Add or remove a suppression'),
      field('Entity', entity),
      field('Identifier kind', parameter),
      field('Identifier', value),
      h('button', { type: 'submit' }, 'Show what it deletes'),
    );
    preview.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        const dry = await api<SuppressionResult>('POST', '/v1/admin/suppressions', body(true));
        const ids = dry.suppressed.flatMap((s) => s.record_ids);
        const status = await api<{ identifiers: Array<{ suppressed: boolean }> }>(
          'GET',
          `/v1/admin/suppressions${query({ entity: entity.value, [parameter.value]: value.value.trim() })}`,
        );
        const already = status.identifiers.some((i) => i.suppressed);
        const go = h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: () => suppress().catch((e: Error) => announce(e.message, 'error')),
          },
          'Suppress',
        );
        const lift = h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              try {
                await api(
                  'DELETE',
                  `/v1/admin/suppressions${query({ entity: entity.value, [parameter.value]: value.value.trim() })}`,
                );
                outcome.replaceChildren(
                  h('p', {}, 'Suppression removed: later imports may bring the record back.'),
                );
                announce('Suppression removed.');
                await showCounts();
              } catch (error) {
                announce((error as Error).message, 'error');
              }
            },
          },
          'Remove suppression',
        );
        fill(
          outcome,
          h(
            'p',
            { id: 'suppression-state' },
            already ? 'This identifier is suppressed.' : 'This identifier is not suppressed.',
          ),
          table(
            'Records it would delete now',
            ['record id'],
            ids.map((id) => [id]),
          ),
          ids.length === 0
            ? h('p', {}, 'No record on file has it; suppressing keeps it out of later imports.')
            : null,
          go,
          already ? lift : null,
        );
      } catch (error) {
        announce((error as Error).message, 'error');
      }
    });
    into.append(counts, preview, outcome);
    await showCounts();
  },
};
