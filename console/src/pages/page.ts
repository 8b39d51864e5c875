// What a page of the console is: where it lives, which scopes open it, and how it draws itself.

export interface SignedIn {
  key: { id: string; name: string; scopes: string[]; expires_at: string | null };
}

export interface Page {
  path: string;
  title: string;
  /** The key needs one of these; none: every key. */
  scopes: string[];
  render(into: HTMLElement, me: SignedIn): Promise<void>;
}

/** Rows of objects as CSV, with the cells a spreadsheet would run as formulas prefixed by `'`. */
export function toCsv(columns: string[], rows: Array<Record<string, unknown>>): string {
  const cell = (value: unknown) => {
    let text =
      value === null || value === undefined ? '' : Array.isArray(value) ? value.join(' ') : String(value);
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = [columns.join(','), ...rows.map((row) => columns.map((c) => cell(row[c])).join(','))];
  return `${lines.join('\n')}\n`;
}
