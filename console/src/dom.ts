// Building the page: elements from plain data (never HTML strings, so nothing a record holds runs), tables,
// downloads and announcements for screen readers.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

/** An element with attributes (`on…` ones are listeners; `true` sets, `false` omits) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Replaces an element's children (leaving out the null and false ones). */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A table with a caption and column headers (scoped, for screen readers), one row per item. */
export function table(caption: string, columns: string[], rows: Child[][]): HTMLElement {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows.map((row) => h('tr', {}, ...row.map((cell) => h('td', {}, cell))))),
    ),
  );
}

/** A labelled input: the label names it for screen readers and takes the pointer's clicks. */
export function field(
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): HTMLElement {
  input.id ||= `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Math.random().toString(36).slice(2, 7)}`;
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
}

export function select(name: string, options: readonly string[], value?: string): HTMLSelectElement {
  return h(
    'select',
    { name },
    ...options.map((option) => h('option', { value: option, selected: option === value }, option)),
  );
}

/** Saves text as a file the browser downloads (no request: the text is already here). */
export function download(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: name });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Says something to screen-reader users (and shows it): the page's status line. */
export function announce(message: string, kind: 'info' | 'error' = 'info'): void {
  const status = document.getElementById('status');
  if (!status) return;
  status.textContent = message;
  status.className = kind;
}

export const formatNumber = (n: number) => n.toLocaleString('en');
