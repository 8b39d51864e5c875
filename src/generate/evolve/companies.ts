// The companies' months: closures, renames and headcount changes, then new companies; who may hire comes out.
import type { ClassifiedEvent } from '../../changes/events.js';
import type { Company } from '../../schemas/company.js';
import { type Rng, recordRng } from '../random.js';
import { addMonths, type Month } from './calendar.js';
import { changeHeadcount, foundedCompany, rename } from './company-edits.js';
import { EmployerPool, employerOf } from './employers.js';
import { companyCreated, companyRemoved, companyUpdated } from './expected.js';
import { type DataFile, type LineWriter, readLines } from './ndjson-files.js';
import { COMPANY, FOUNDED } from './rates.js';
import { RecordEdit } from './record-edit.js';
import { readHead } from './record-head.js';
import { companyNumber } from './record-numbers.js';
import { KIND, recordStream } from './streams.js';

/** What the people's months need to know of the companies', and what the companies' produced. */
export interface CompanyWorld {
  /** Company id → its new name, for companies renamed (their people's current_company follows). */
  renamed: Map<string, string>;
  /** Company id → its new size band, for companies whose band changed. */
  resized: Map<string, string>;
  /** Company id → the month (1…) it closed in. */
  closedAt: Map<string, number>;
  employers: EmployerPool;
  /** Each changed company's events, by id. */
  events: Map<string, ClassifiedEvent[]>;
  /** Companies read, and written (closed ones gone, founded ones added). */
  read: number;
  written: number;
}

export interface Evolution {
  seed: number;
  months: number;
  asOf: Month;
}

const ANY_CHANGE = COMPANY.closed + COMPANY.renamed + COMPANY.headcount;

type CompanyChange = 'renamed' | 'headcount';

/** A company's months: the month it closes (0: never) and the changes before; null when nothing happens. */
function companyMonths(run: Evolution, id: string): { closedAt: number; changes: CompanyChange[] } | null {
  const rng = recordStream(run.seed, KIND.companyMonths, id);
  let plan: { closedAt: number; changes: CompanyChange[] } | null = null;
  for (let month = 1; month <= run.months; month++) {
    const r = rng.next();
    if (r >= ANY_CHANGE) continue;
    plan ??= { closedAt: 0, changes: [] };
    if (r < COMPANY.closed) {
      plan.closedAt = month;
      break;
    }
    plan.changes.push(r < COMPANY.closed + COMPANY.renamed ? 'renamed' : 'headcount');
  }
  return plan;
}

/** Rounds up with a chance equal to the fraction, so small sets still see rare events now and then. */
export const roundByChance = (rng: Rng, x: number) => Math.floor(x) + (rng.chance(x - Math.floor(x)) ? 1 : 0);

/**
 * Streams DIR's companies into `out`: unchanged lines as they were, changed ones re-serialised, closed ones
 * left out, founded ones appended. `nextNumber` is the first unused company record number.
 */
export async function evolveCompanies(
  run: Evolution,
  input: DataFile,
  out: LineWriter,
  nextNumber: number,
): Promise<CompanyWorld & { nextNumber: number }> {
  const world: CompanyWorld = {
    renamed: new Map(),
    resized: new Map(),
    closedAt: new Map(),
    employers: new EmployerPool(recordRng(run.seed, KIND.employers, 0)),
    events: new Map(),
    read: 0,
    written: 0,
  };
  let maxNumber = nextNumber - 1;
  const onLine = (buffer: Buffer, start: number, end: number) => {
    world.read++;
    const headId = readHead(buffer, start, end)?.id;
    let record: Company | undefined;
    const parse = () => (record ??= JSON.parse(buffer.toString('utf8', start, end)) as Company);
    const id = headId ?? parse().id;
    if (typeof id !== 'string') throw new Error('a company without an id');
    maxNumber = Math.max(maxNumber, companyNumber(id) ?? -1);
    const plan = companyMonths(run, id);
    if (!plan) {
      out.line(buffer.subarray(start, end));
      world.written++;
      world.employers.offer(() => employerOf(parse()));
      return;
    }
    const edit = new RecordEdit(parse());
    const rng = recordStream(run.seed, KIND.companyEdits, id);
    for (const change of plan.changes) (change === 'renamed' ? rename : changeHeadcount)(edit, rng);
    if (plan.closedAt) {
      world.closedAt.set(id, plan.closedAt);
      world.events.set(id, [companyRemoved(id)]);
      return;
    }
    out.line(JSON.stringify(edit.record));
    world.written++;
    const events = companyUpdated(id, edit);
    if (events.length > 0) world.events.set(id, events);
    const fields = edit.changedFields();
    if (fields.includes('name')) world.renamed.set(id, edit.record.name ?? '');
    if (fields.includes('company_size')) world.resized.set(id, edit.record.company_size ?? '');
    world.employers.offer(() => employerOf(edit.record));
  };
  await readLines(input.file, onLine, () => out.drain());
  const founded = foundCompanies(run, world, out, maxNumber + 1);
  return { ...world, nextNumber: maxNumber + 1 + founded };
}

/** New companies, a share of those read, each open to hires from the month it was founded. */
function foundCompanies(run: Evolution, world: CompanyWorld, out: LineWriter, firstNumber: number): number {
  const rng = recordRng(run.seed, KIND.founded, 0);
  const count = roundByChance(rng, world.read * FOUNDED * run.months);
  for (let k = 0; k < count; k++) {
    const month = 1 + rng.int(run.months);
    const company = foundedCompany(run.seed, firstNumber + k, addMonths(run.asOf, month));
    out.line(JSON.stringify(company));
    world.written++;
    world.events.set(company.id, [companyCreated(company.id)]);
    world.employers.offer(() => employerOf(company, month));
  }
  return count;
}
