// The months a data set lives through, and the small manifest that carries its date from one evolve to the next.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AS_OF, MONTHS } from '../values.js';

export interface Month {
  year: number;
  month: number;
}

/** Months since year 0: a month as one number. */
export const monthIndex = ({ year, month }: Month) => year * 12 + (month - 1);

export const addMonths = (start: Month, n: number): Month => {
  const index = monthIndex(start) + n;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
};

const short = ({ year, month }: Month) => `${MONTHS[month - 1]} '${String(year % 100).padStart(2, '0')}`;

/** A role that has ended, in the form of time_in_current_role: "Jan '23 - Aug '25". */
export const endedRole = (from: Month, until: Month) => `${short(from)} - ${short(until)}`;

/** What `enrich evolve` writes beside a snapshot, so that the next evolve continues from it. */
export interface Manifest {
  /** The month the snapshot describes, "YYYY-MM". */
  as_of: string;
  /** The first unused record numbers: evolved sets never reuse a removed record's id. */
  next_company_number: number;
  next_person_number: number;
}

export const MANIFEST = 'evolve.json';

export const monthText = ({ year, month }: Month) => `${year}-${String(month).padStart(2, '0')}`;

function parseMonth(text: unknown): Month {
  const match = typeof text === 'string' ? /^(\d{4})-(\d{2})$/.exec(text) : null;
  const month = Number(match?.[2]);
  if (!match || month < 1 || month > 12) throw new Error(`${MANIFEST}: as_of must be "YYYY-MM", got ${text}`);
  return { year: Number(match[1]), month };
}

export interface Start {
  asOf: Month;
  nextCompanyNumber: number;
  nextPersonNumber: number;
}

/** Where a data set stands: its manifest when an evolve wrote one, else the generator's date. */
export async function readStart(dir: string): Promise<Start> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { asOf: { ...AS_OF }, nextCompanyNumber: 0, nextPersonNumber: 0 };
  }
  const manifest = JSON.parse(text) as Partial<Manifest>;
  const number = (value: unknown) => (Number.isSafeInteger(value) ? (value as number) : 0);
  return {
    asOf: parseMonth(manifest.as_of),
    nextCompanyNumber: number(manifest.next_company_number),
    nextPersonNumber: number(manifest.next_person_number),
  };
}

export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  await writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}
