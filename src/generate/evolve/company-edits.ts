// What happens to a company in a month: a rename, a change of headcount; and new companies founded.
import type { Company } from '../../schemas/company.js';
import { buildCompany } from '../company-record.js';
import { BRAND_TAILS, BRAND_WORDS } from '../industries.js';
import { ID_BLOCK } from '../numbering.js';
import type { Rng } from '../random.js';
import { COMPANY_SIZES } from '../values.js';
import type { Month } from './calendar.js';
import type { RecordEdit } from './record-edit.js';

const LEGAL_SUFFIX = / (Pty Ltd|Ltd|Limited)$/;

/** A rebrand: new words, the same legal form; the description and social profiles follow the name. */
export function rename(edit: RecordEdit<Company>, rng: Rng): void {
  const old = edit.record.name ?? '';
  const suffix = LEGAL_SUFFIX.exec(old)?.[0] ?? '';
  let name = old;
  for (let tries = 0; name === old && tries < 8; tries++) {
    name = `${rng.pick(BRAND_WORDS)} ${rng.pick(BRAND_TAILS)}${suffix}`;
  }
  if (name === old) return;
  edit.set('name', name);
  const { description, nextGen } = edit.record;
  if (old && description?.includes(old)) edit.set('description', description.split(old).join(name));
  const accounts = nextGen?.social_media;
  if (old && accounts) {
    const renamed = Object.fromEntries(
      Object.entries(accounts).map(([network, account]) => [
        network,
        account && account.profile_name === old ? { ...account, profile_name: name } : account,
      ]),
    );
    edit.set('nextGen', { ...nextGen, social_media: renamed });
  }
}

const bandOf = (count: number) =>
  COMPANY_SIZES.find((band) => count <= band.max) ?? COMPANY_SIZES[COMPANY_SIZES.length - 1]!;

/**
 * Headcount moves by -8% to +12% (growth outweighs shrinking), the size band following the count. A
 * company without a count (most outside Australia) now and then steps up a band.
 */
export function changeHeadcount(edit: RecordEdit<Company>, rng: Rng): void {
  const count = edit.record.au_employee_count;
  if (typeof count === 'number') {
    const next = Math.max(1, Math.round(count * (0.92 + rng.next() * 0.2)));
    if (next === count) return;
    edit.set('au_employee_count', next);
    const band = bandOf(next).label;
    if (band !== edit.record.company_size) edit.set('company_size', band);
    return;
  }
  const rank = COMPANY_SIZES.findIndex((band) => band.label === edit.record.company_size);
  if (rank >= 0 && rank < COMPANY_SIZES.length - 1 && rng.chance(0.15)) {
    edit.set('company_size', COMPANY_SIZES[rank + 1]!.label);
  }
}

/**
 * A company founded in `month`, numbered `number`, drawn as the generator draws company `number` of its
 * block (so its domain, slug and ABN are as unique as the generator's) from the evolve's own seed.
 */
export function foundedCompany(seed: number, number: number, month: Month): Company {
  const block = Math.floor(number / ID_BLOCK) * ID_BLOCK;
  return { ...buildCompany(seed, number - block, block), year_founded: month.year };
}
