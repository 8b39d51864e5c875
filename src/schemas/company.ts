// The company record of spec §2.2, with the spec's odd types kept (contract §2).
import { type Static, Type } from '@sinclair/typebox';
import { Closed, Int, Num, RecordId, Str, Strings } from './field.js';

const NextGenSocialAccount = Closed({
  profile_name: Str(),
  handle: Str(),
  followers: Int(),
  verified: Type.Boolean(),
  videos: Int(),
  likes: Int(),
  views: Int(),
  subscribers: Int(),
  following: Int(),
  joined: Str('Date, YYYY-MM-DD'),
});

const ReviewsRating = Closed({
  ceo_approval: Str('Numeric text'),
  total_reviews: Int(),
  rating: Closed({
    ceo_approval_rating: Str(),
    career_opportunities_rating: Str(),
    compensation_and_benefits_rating: Str(),
    culture_and_values_rating: Str(),
    diversity_and_inclusion_rating: Str(),
    senior_management_rating: Str(),
    work_life_balance_rating: Str(),
  }),
  overall_rating: Str('Numeric text'),
  employee_rating_id: Str(),
  recommend_to_friend: Int(),
  url: Num('A number, as the specification shows it'),
});

const WebTraffic = Closed({
  summary: Closed({
    avg_visit_duration: Str(),
    total_web_visitors: Int(),
    bounce_rate: Num(),
    pages_per_visit: Num(),
  }),
  traffic_share: Closed({
    countries: Type.Object({}, { additionalProperties: true, description: 'Contents unspecified' }),
    organic: Num(),
    paid: Num(),
  }),
  marketing_channels_distribution: Closed({
    Direct: Num(),
    Referrals: Num(),
    Search: Num(),
    Social: Num(),
    Mail: Num(),
  }),
});

const NextGen = Closed({
  technographics: Type.Record(Type.String(), Type.Array(Type.String()), {
    description: 'Category name to technology names',
  }),
  website: Str('URL'),
  social_media: Closed({
    youtube: NextGenSocialAccount,
    instagram: NextGenSocialAccount,
    linkedin: NextGenSocialAccount,
    facebook: NextGenSocialAccount,
  }),
  reviews_rating: ReviewsRating,
  id: Str('Company identifier, repeated'),
  web_traffic: WebTraffic,
});

export const CompanyProperties = {
  name: Str(),
  website: Str('URL'),
  fqdn: Str('Domain name'),
  description: Str(),
  tagline: Str(),
  linkedin: Str('LinkedIn slug'),
  au_employee_count: Int(),
  year_founded: Int(),
  hq_location: Str(),
  hq_country: Str(),
  company_size: Str('Range label'),
  company_type: Str(),
  abn_operation_status: Str(),
  locations: Strings(),
  industries: Strings(),
  revenue: Str('Range label'),
  phones: Strings(),
  emails: Strings('E-mail addresses'),
  social_media: Closed({
    twitter: Str(),
    youtube: Str(),
    facebook: Str(),
    linkedin: Str(),
    instagram: Str(),
  }),
  industry_codes: Closed({ abn: Str(), acn: Str(), sic: Str(), duns: Str(), naics: Str(), anzsic: Str() }),
  keywords: Strings(),
  org_registers: Closed({ vc: Str() }),
  states: Strings('Region abbreviations'),
  nextGen: NextGen,
};

const CompanyFields = Closed(CompanyProperties);

/** A company as stored and served; `id` is required on import. */
export const Company = Type.Object(
  { id: RecordId, ...CompanyFields.properties },
  { additionalProperties: false, $id: 'Company', title: 'Company' },
);
export type Company = Static<typeof Company>;
