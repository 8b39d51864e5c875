// A person's e-mail addresses and social accounts.
import type { Person } from '../schemas/person.js';
import type { Department } from '../vocabulary/departments.js';
import type { CompanyFacts } from './company.js';
import type { Region } from './places.js';
import { type Rng, weights } from './random.js';
import {
  listsSharedInbox,
  type PersonName,
  type Placement,
  type Staffing,
  workLocalPart,
} from './staffing.js';
import { DELIVERABILITY, NZ_PERSONAL_EMAIL_DOMAINS, PERSONAL_EMAIL_DOMAINS } from './values.js';

type Emails = NonNullable<Person['emails']>;
type SocialAccount = NonNullable<NonNullable<Person['social_media']>['github']>;

const PERSONAL_COUNT = weights([
  [0, 20],
  [1, 70],
  [2, 10],
]);

/**
 * A personal address: name letters, then the person's record number as digits. Letters never end in
 * a digit, so the trailing digits recover the number and no two people share an address, across data
 * sets too.
 */
function personalLocalPart(rng: Rng, name: PersonName, number: number): string {
  const f = name.firstAscii || 'me';
  const l = name.lastAscii || 'mail';
  const letters = rng.pick([`${f}.${l}`, `${f}${l}`, `${f}_${l}`, `${f[0]}${l}`, `${l}.${f}`]);
  return `${letters}${rng.pick(['', '', '.', '_'])}${number}`;
}

function personalDomain(rng: Rng, home: Region): string {
  return home.country === 'New Zealand' && rng.chance(0.5)
    ? rng.pick(NZ_PERSONAL_EMAIL_DOMAINS)
    : rng.weighted(PERSONAL_EMAIL_DOMAINS);
}

function entry(rng: Rng, value: string) {
  return { value, deliverability: rng.weighted(DELIVERABILITY) };
}

export function emails(
  rng: Rng,
  plan: Staffing,
  at: Placement,
  facts: CompanyFacts,
  name: PersonName,
  number: number,
  home: Region,
): Emails {
  const work = [entry(rng, `${workLocalPart(plan, at, facts.emailFormat, name)}@${facts.fqdn}`)];
  if (listsSharedInbox(plan, at)) work.push(entry(rng, facts.inbox));
  const personal: Emails['personal'] = [];
  const count = rng.weighted(PERSONAL_COUNT);
  const local = personalLocalPart(rng, name, number);
  for (const domain of new Set(Array.from({ length: count }, () => personalDomain(rng, home)))) {
    personal.push(entry(rng, `${local}@${domain}`));
  }
  return { personal, work };
}

function account(rng: Rng, share: number, stars: boolean): SocialAccount {
  if (!rng.chance(share)) return { handle: null, connections: null, followers: null, stars: null };
  const followers = Math.floor(rng.next() ** 3 * 5000);
  return {
    handle: rng.between(1_000_000, 999_999_999),
    connections: String(Math.floor(followers * (0.5 + rng.next()))),
    followers,
    stars: stars ? Math.floor(rng.next() ** 4 * 2000) : 0,
  };
}

/** All six networks; absent accounts have null fields. Types follow the specification (contract §2). */
export function socialMedia(rng: Rng, department: Department): NonNullable<Person['social_media']> {
  const technical = department === 'Engineering & Technical';
  const connections = rng.between(5, 2000);
  return {
    linkedin: {
      handle: rng.between(10_000_000, 999_999_999),
      connections: connections >= 500 ? '500+' : String(connections),
      followers: connections + rng.between(0, 300),
      stars: 0,
    },
    github: account(rng, technical ? 0.6 : 0.05, true),
    twitter: account(rng, 0.25, false),
    facebook: account(rng, 0.4, false),
    youtube: account(rng, 0.08, false),
    pintrest: account(rng, 0.1, false),
  };
}
