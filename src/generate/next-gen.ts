// The company record's nextGen block: technology usage, social accounts, employee reviews, web traffic.
import type { Company } from '../schemas/company.js';
import type { CompanyFacts } from './company.js';
import type { Rng } from './random.js';
import { TECHNOGRAPHICS } from './values.js';

type NextGen = NonNullable<Company['nextGen']>;
type SocialAccounts = NonNullable<NextGen['social_media']>;

const round = (value: number, places: number) => Number(value.toFixed(places));

/** Splits 1 into `n` random shares, rounded to 3 places. */
function shares(rng: Rng, n: number): number[] {
  const raw = Array.from({ length: n }, () => 0.05 + rng.next());
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((x) => round(x / total, 3));
}

const pad2 = (n: number) => String(n).padStart(2, '0');

function technographics(rng: Rng): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const category of rng.sample(Object.keys(TECHNOGRAPHICS), rng.between(2, 5))) {
    out[category] = rng.sample(TECHNOGRAPHICS[category]!, rng.between(1, 3));
  }
  return out;
}

const LAUNCHED = { youtube: 2005, instagram: 2010, linkedin: 2003, facebook: 2004 } as const;

function socialAccounts(rng: Rng, facts: CompanyFacts, founded: number): SocialAccounts {
  const scale = 10 ** (1 + facts.sizeRank * 0.7);
  const account = (network: keyof typeof LAUNCHED) => {
    const followers = Math.floor(scale * (1 + rng.next() * 20));
    const video = network === 'youtube';
    const year = rng.between(Math.max(founded, LAUNCHED[network]), 2024);
    return {
      profile_name: facts.name,
      handle: network === 'linkedin' ? facts.linkedin : facts.handle,
      followers,
      verified: facts.sizeRank >= 4 && rng.chance(0.4),
      videos: video ? rng.between(0, 300) : 0,
      likes: Math.floor(followers * rng.next() * 3),
      views: video ? Math.floor(followers * (10 + rng.next() * 200)) : 0,
      subscribers: video ? followers : 0,
      following: rng.between(0, 900),
      joined: `${year}-${pad2(rng.between(1, 12))}-${pad2(rng.between(1, 28))}`,
    };
  };
  return {
    youtube: account('youtube'),
    instagram: account('instagram'),
    linkedin: account('linkedin'),
    facebook: account('facebook'),
  };
}

function reviewsRating(rng: Rng, facts: CompanyFacts): NextGen['reviews_rating'] {
  const score = () => (rng.between(25, 49) / 10).toFixed(1);
  return {
    ceo_approval: String(rng.between(40, 98)),
    total_reviews: Math.floor(rng.next() * 8 * 10 ** facts.sizeRank),
    rating: {
      ceo_approval_rating: score(),
      career_opportunities_rating: score(),
      compensation_and_benefits_rating: score(),
      culture_and_values_rating: score(),
      diversity_and_inclusion_rating: score(),
      senior_management_rating: score(),
      work_life_balance_rating: score(),
    },
    overall_rating: score(),
    employee_rating_id: `E${rng.between(100_000, 9_999_999)}`,
    recommend_to_friend: rng.between(35, 97),
    // The specification shows the review page's url as a number; it is kept a number (contract §2).
    url: rng.between(100_000, 9_999_999),
  };
}

function webTraffic(rng: Rng, facts: CompanyFacts): NextGen['web_traffic'] {
  const home = facts.region.country;
  const away = home === 'Australia' ? 'New Zealand' : 'Australia';
  const [local = 0, near = 0, us = 0] = shares(rng, 3).sort((a, b) => b - a);
  const organic = round(0.5 + rng.next() * 0.45, 3);
  const [direct, referrals, search, social, mail] = shares(rng, 5);
  const seconds = rng.between(20, 420);
  return {
    summary: {
      avg_visit_duration: `00:${pad2(Math.floor(seconds / 60))}:${pad2(seconds % 60)}`,
      total_web_visitors: Math.floor(10 ** (2 + facts.sizeRank * 0.8) * (1 + rng.next() * 9)),
      bounce_rate: round(0.25 + rng.next() * 0.5, 3),
      pages_per_visit: round(1 + rng.next() * 5, 2),
    },
    traffic_share: {
      countries: { [home]: local, [away]: near, 'United States': us },
      organic,
      paid: round(1 - organic, 3),
    },
    marketing_channels_distribution: {
      Direct: direct ?? 0,
      Referrals: referrals ?? 0,
      Search: search ?? 0,
      Social: social ?? 0,
      Mail: mail ?? 0,
    },
  };
}

/** The full nextGen block for a company founded in `founded`. */
export function nextGen(rng: Rng, facts: CompanyFacts, founded: number): NextGen {
  return {
    technographics: technographics(rng),
    website: facts.website,
    social_media: socialAccounts(rng, facts, founded),
    reviews_rating: reviewsRating(rng, facts),
    id: facts.id,
    web_traffic: webTraffic(rng, facts),
  };
}
