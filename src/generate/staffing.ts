// Who works where: people spread over companies so that work e-mails are unique without a lookup table.
import { asciiLetters, type EmailFormat, emailLetters } from './handles.js';
import { blockStart } from './numbering.js';
import { poolsFor } from './pools.js';
import { recordRng, STREAM, streamSeed } from './random.js';
import { GENERIC_INBOXES, WORLD_FIRST_NAMES, WORLD_LAST_NAMES } from './values.js';

/**
 * Person `i` fills slot `i mod C` at rank `floor(i / C)`; slots map to companies by a permutation.
 * So (company, rank) identifies a person, and a rank-suffixed address can never repeat in a company.
 */
export interface Staffing {
  seed: number;
  /** Record numbers start here, for companies and people alike (see numbering.ts). */
  idStart: number;
  companies: number;
  people: number;
  factor: number;
  offset: number;
  /** Slots below this have two or more people, so an inbox listed by ranks 0 and 1 is shared. */
  inboxSlots: number;
  /** Share of those slots whose first two people also list the company's shared inbox. */
  inboxShare: number;
  /** Offsets which slots are chosen, so the choice differs by seed. */
  inboxPhase: number;
}

const FACTORS = [7919, 7927, 7933, 7937, 7949, 7951];
const INBOX_KIND = 0x696e6278;
const OFFSET_KIND = 0x6f666673;
/** About this share of people also list a shared inbox, so lookups meet shared identifiers. */
const SHARED_INBOX_RATE = 0.005;
/** Beyond this rank, colleagues are not compared; the address just takes the rank as a suffix. */
const MAX_COMPARED_RANK = 24;

export function staffing(
  seed: number,
  companies: number,
  people: number,
  idStart = blockStart(seed),
): Staffing {
  const factor = FACTORS.find((f) => companies % f !== 0) ?? 1;
  const offset = streamSeed(seed, OFFSET_KIND, 0) % Math.max(1, companies);
  const inboxSlots = Math.max(0, Math.min(companies, people - companies));
  // At least one shared inbox whenever any company has two people, so shared lookups always occur.
  const inboxShare =
    inboxSlots === 0
      ? 0
      : Math.min(1, Math.max(1 / inboxSlots, (SHARED_INBOX_RATE * people) / (2 * inboxSlots)));
  const inboxPhase = streamSeed(seed, INBOX_KIND, 0) / 2 ** 32;
  return { seed, idStart, companies, people, factor, offset, inboxSlots, inboxShare, inboxPhase };
}

export interface Placement {
  company: number;
  slot: number;
  rank: number;
}

export function placementOf(plan: Staffing, index: number): Placement {
  const slot = index % plan.companies;
  return {
    company: (slot * plan.factor + plan.offset) % plan.companies,
    slot,
    rank: Math.floor(index / plan.companies),
  };
}

/** Whether this person also lists the shared inbox; chosen slots are spread evenly, so the rate is exact. */
export function listsSharedInbox(plan: Staffing, at: Placement): boolean {
  if (at.rank >= 2 || at.slot >= plan.inboxSlots) return false;
  const before = at.slot * plan.inboxShare + plan.inboxPhase;
  return Math.floor(before + plan.inboxShare) > Math.floor(before);
}

export interface PersonName {
  gender: 'female' | 'male';
  first: string;
  middle: string | null;
  last: string;
  firstAscii: string;
  lastAscii: string;
}

/** Person `index`'s name, on its own stream so colleagues' names are cheap to recompute. */
export function personName(seed: number, index: number): PersonName {
  const rng = recordRng(seed, STREAM.personName, index);
  const pools = poolsFor(seed);
  const gender = rng.chance(0.5) ? 'female' : 'male';
  const firsts = gender === 'female' ? pools.femaleFirst : pools.maleFirst;
  const first = rng.chance(0.06) ? rng.pick(WORLD_FIRST_NAMES[gender]) : rng.pick(firsts);
  const last = rng.chance(0.08) ? rng.pick(WORLD_LAST_NAMES) : rng.pick(pools.last);
  const middle = rng.chance(0.4) ? rng.pick(firsts) : null;
  return { gender, first, middle, last, firstAscii: asciiLetters(first), lastAscii: asciiLetters(last) };
}

const GENERIC = new Set(GENERIC_INBOXES);

/**
 * The local part of a person's work address: the company's format, plus the person's rank
 * only when a colleague of lower rank already has those letters.
 */
export function workLocalPart(plan: Staffing, at: Placement, format: EmailFormat, name: PersonName): string {
  const letters = emailLetters(format, name.firstAscii, name.lastAscii);
  if (at.rank > MAX_COMPARED_RANK || GENERIC.has(letters)) return `${letters}${at.rank}`;
  for (let rank = 0; rank < at.rank; rank++) {
    const colleague = personName(plan.seed, at.slot + rank * plan.companies);
    if (emailLetters(format, colleague.firstAscii, colleague.lastAscii) === letters)
      return `${letters}${at.rank}`;
  }
  return letters;
}
