// Keys (admin): every key, made here with its token shown once (a copy button and a curl line ready to
// run), its rate, quota, scopes and expiry changed, rotated and revoked, each irreversible step confirmed.
import { api } from '../api.js';
import { announce, field, formatNumber, h, table } from '../dom.js';
import type { Page } from './page.js';

const SCOPES = ['people:read', 'company:read', 'changes:read', 'changes:write', 'admin'];

interface AdminKey {
  id: string;
  name: string;
  scopes: string[];
  rate: number;
  quota: number | null;
  created_at: string;
  expires_at: string | null;
  state: string;
  token?: string;
}

function scopeBoxes(legend: string, checked: readonly string[]): { element: HTMLElement; value(): string[] } {
  const boxes = SCOPES.map((scope) =>
    h('input', { type: 'checkbox', name: 'scopes', value: scope, checked: checked.includes(scope) }),
  );
  const element = h(
    'fieldset',
    { class: 'scopes' },
    h('legend', {}, legend),
    ...boxes.map((box) => h('label', { class: 'check' }, box, ` ${box.value}`)),
  );
  return { element, value: () => boxes.filter((b) => b.checked).map((b) => b.value) };
}

/** The settings of a form: what the admin API takes (empty quota or expiry: none). */
function settingsFields(key?: AdminKey) {
  const rate = h('input', { type: 'number', min: 1, name: 'rate', value: key?.rate ?? 50 });
  const quota = h('input', {
    type: 'number',
    min: 1,
    name: 'quota',
    value: key?.quota ?? '',
    placeholder: 'none',
  });
  const expires = h('input', { type: 'date', name: 'expires', value: key?.expires_at?.slice(0, 10) ?? '' });
  const scopes = scopeBoxes('Scopes', key?.scopes ?? ['people:read', 'company:read']);
  return {
    elements: [
      field('Rate (requests per second)', rate),
      field('Monthly quota (matched lookups)', quota),
      field('Expires on', expires),
      scopes.element,
    ],
    values: () => ({
      rate: Number(rate.value),
      quota: quota.value === '' ? null : Number(quota.value),
      expires_at: expires.value === '' ? null : new Date(`${expires.value}T00:00:00Z`).toISOString(),
      scopes: scopes.value(),
    }),
  };
}

/** A token shown once: a copy button, and a curl line that uses it against this server. */
function tokenShown(key: AdminKey): HTMLElement {
  const curl = `curl -H "Authorization: Bearer ${key.token}" ${location.origin}/v1/usage`;
  const copy = (text: string, what: string) => async () => {
    await navigator.clipboard.writeText(text).then(
      () => announce(`${what} copied.`),
      () => announce(`Select the ${what.toLowerCase()} and copy it.`, 'error'),
    );
  };
  return h(
    'section',
    { class: 'card token', 'aria-labelledby': 'token-title' },
    h('h2', { id: 'token-title' }, `Token of ${key.name}`),
    h('p', {}, 'Shown this once: copy it now. The server keeps only a hash of it.'),
    h('pre', { tabindex: 0 }, h('code', { id: 'new-token' }, key.token ?? '')),
    h('button', { type: 'button', onclick: copy(key.token ?? '', 'Token') }, 'Copy token'),
    h('p', {}, 'Try it:'),
    h('pre', { tabindex: 0 }, h('code', { id: 'curl-line' }, curl)),
    h('button', { type: 'button', onclick: copy(curl, 'Curl line') }, 'Copy curl line'),
  );
}

async function render(into: HTMLElement): Promise<void> {
  const { keys } = await api<{ keys: AdminKey[] }>('GET', '/v1/admin/keys');
  const shown = h('div', {});
  const editor = h('div', {});
  const refresh = async (message?: string, token?: AdminKey) => {
    into.replaceChildren();
    await render(into);
    if (token) into.prepend(tokenShown(token));
    if (message) announce(message);
  };
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const settings = settingsFields();
  const create = h(
    'form',
    { class: 'card', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title' }, 'Create a key'),
    field('Name', name),
    ...settings.elements,
    h('button', { type: 'submit' }, 'Create key'),
  );
  create.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const made = await api<AdminKey>('POST', '/v1/admin/keys', { name: name.value, ...settings.values() });
      await refresh(`Key ${made.name} created.`, made);
      document.getElementById('token-title')?.focus();
    } catch (error) {
      announce((error as Error).message, 'error');
    }
  });
  const act = (key: AdminKey, label: string, run: () => Promise<void>) =>
    h(
      'button',
      {
        type: 'button',
        class: 'small',
        'aria-label': `${label} ${key.name}`,
        onclick: () => run().catch((e: Error) => announce(e.message, 'error')),
      },
      label,
    );
  const edit = (key: AdminKey) => async () => {
    const fields = settingsFields(key);
    const form = h(
      'form',
      { class: 'card', 'aria-labelledby': 'edit-title' },
      h('h2', { id: 'edit-title', tabindex: -1 }, `Change ${key.name}`),
      ...fields.elements,
      h('button', { type: 'submit' }, 'Save changes'),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        await api('PATCH', `/v1/admin/keys/${key.id}`, fields.values());
        await refresh(`Key ${key.name} changed.`);
      } catch (error) {
        announce((error as Error).message, 'error');
      }
    });
    editor.replaceChildren(form);
    document.getElementById('edit-title')?.focus();
  };
  const rotate = (key: AdminKey) => async () => {
    if (!confirm(`Rotate ${key.name}? Its current token stops working in 24 hours.`)) return;
    const rotated = await api<AdminKey>('POST', `/v1/admin/keys/${key.id}/rotate`, {});
    await refresh(`Key ${key.name} rotated.`, rotated);
  };
  const revoke = (key: AdminKey) => async () => {
    if (!confirm(`Revoke ${key.name}? This cannot be undone: its token stops working at once.`)) return;
    await api('POST', `/v1/admin/keys/${key.id}/revoke`);
    await refresh(`Key ${key.name} revoked.`);
  };
  into.append(
    shown,
    table(
      'Keys',
      ['name', 'id', 'scopes', 'rate', 'quota', 'expires', 'state', 'actions'],
      keys.map((key) => [
        key.name,
        h('code', {}, key.id),
        key.scopes.join(', '),
        formatNumber(key.rate),
        key.quota === null ? 'none' : formatNumber(key.quota),
        key.expires_at?.slice(0, 10) ?? 'never',
        key.state,
        key.state === 'active'
          ? h(
              'span',
              { class: 'actions' },
              act(key, 'Change', edit(key)),
              act(key, 'Rotate', rotate(key)),
              act(key, 'Revoke', revoke(key)),
            )
          : '',
      ]),
    ),
    editor,
    create,
  );
}

export const keysPage: Page = { path: 'keys', title: 'Keys', scopes: ['admin'], render };
