// The console's shell: sign-in, the pages a key's scopes open, the hash route that picks one, sign-out.
import { api, whenSignedOut } from './api.js';
import { announce, h } from './dom.js';
import { auditPage } from './pages/audit.js';
import { changesPage } from './pages/changes.js';
import { keysPage } from './pages/keys.js';
import { listsPage } from './pages/lists.js';
import { lookupPage } from './pages/lookup.js';
import { overviewPage } from './pages/overview.js';
import type { Page, SignedIn } from './pages/page.js';
import { suppressionsPage } from './pages/suppressions.js';
import { usagePage } from './pages/usage.js';

const PAGES: Page[] = [
  overviewPage,
  keysPage,
  usagePage,
  auditPage,
  suppressionsPage,
  listsPage,
  lookupPage,
  changesPage,
];

const main = () => document.getElementById('main')!;
const nav = () => document.getElementById('nav')!;

let me: SignedIn | undefined;

const open = (key: SignedIn['key']) =>
  PAGES.filter((page) => page.scopes.length === 0 || page.scopes.some((s) => key.scopes.includes(s)));

function signInForm(): void {
  me = undefined;
  nav().replaceChildren();
  document.getElementById('who')!.replaceChildren();
  const token = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    required: true,
    id: 'token',
  });
  const form = h(
    'form',
    { class: 'card sign-in', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in'),
    h(
      'p',
      {},
      'Paste an API key. It is exchanged for a session on this server; the browser does not keep the key.',
    ),
    h('div', { class: 'field' }, h('label', { for: 'token' }, 'API key'), token),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const session = await api<SignedIn>('POST', '/console/session', { token: token.value.trim() });
      token.value = '';
      start(session);
    } catch (error) {
      announce((error as Error).message, 'error');
    }
  });
  main().replaceChildren(form);
  document.title = 'Sign in · Enrich console';
  token.focus();
}

function start(session: SignedIn): void {
  me = session;
  const pages = open(session.key);
  nav().replaceChildren(
    h(
      'ul',
      {},
      ...pages.map((page) =>
        h('li', {}, h('a', { href: `#/${page.path}`, 'data-page': page.path }, page.title)),
      ),
    ),
  );
  const signOut = h('button', { type: 'button', class: 'link' }, 'Sign out');
  signOut.addEventListener('click', async () => {
    await api('DELETE', '/console/session').catch(() => {});
    location.hash = '';
    signInForm();
    announce('Signed out.');
  });
  document
    .getElementById('who')!
    .replaceChildren(h('span', {}, `${session.key.name} (${session.key.id})`), signOut);
  if (!location.hash.startsWith('#/') || !pages.some((p) => location.hash === `#/${p.path}`)) {
    location.hash = `#/${pages[0]?.path ?? ''}`;
  } else route();
}

async function route(): Promise<void> {
  if (me === undefined) return;
  const pages = open(me.key);
  const page = pages.find((p) => location.hash === `#/${p.path}`) ?? pages[0];
  if (page === undefined) return;
  for (const link of nav().querySelectorAll('a')) {
    if (link.dataset.page === page.path) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${page.title} · Enrich console`;
  const heading = h('h1', { tabindex: -1 }, page.title);
  const body = h('div', { class: 'page' });
  main().replaceChildren(heading, body);
  heading.focus();
  announce('');
  try {
    await page.render(body, me);
  } catch (error) {
    announce((error as Error).message, 'error');
  }
}

whenSignedOut(() => {
  if (me !== undefined) {
    signInForm();
    announce('Your session has ended: sign in again.', 'error');
  }
});
window.addEventListener('hashchange', () => void route());

api<SignedIn>('GET', '/console/session').then(start, signInForm);
