// The person record of spec §2.1, with the spec's odd types kept (contract §2).
import { type Static, Type } from '@sinclair/typebox';
import { Closed, Int, Num, RecordId, Str, Strings } from './field.js';

const EmailEntry = Closed({ value: Str('E-mail address'), deliverability: Str('e.g. Deliverable') });

// The spec keeps the example's types: handle is numeric, connections a string.
const PersonSocialAccount = Closed({ handle: Num(), connections: Str(), followers: Num(), stars: Num() });

const CurrentCompany = Closed(
  {
    id: Str('Company identifier'),
    name: Str(),
    size: Str('Range of employee counts'),
    website: Str('URL'),
    industry: Strings(),
    linkedin: Str('LinkedIn slug'),
    main_phones: Strings(),
    other_phones: Strings(),
    mobile_phones: Strings(),
  },
  'Summary of the current employer',
);

const SecondaryPosition = Closed({
  company_id: Str(),
  company_name: Str(),
  company_size: Str(),
  company_website: Str('URL'),
  company_linkedin: Str('LinkedIn slug'),
  company_industry: Str(),
  cleaned_position: Str(),
  month_joined: Int(),
  year_joined: Str('A string, unlike the top-level integer year_joined'),
  time_in_current_role: Str(),
  seniority: Str(),
  department: Str(),
});

export const PersonProperties = {
  name: Str('Full name'),
  first_name: Str(),
  last_name: Str(),
  middle_name: Str(),
  headline: Str(),
  description: Str(),
  position: Str('Current job title'),
  current_company: CurrentCompany,
  time_in_current_role: Str('Text range such as "Jan \'23 - Present"'),
  month_joined: Int('Month number'),
  year_joined: Int('Year'),
  emails: Closed({ personal: Type.Array(EmailEntry), work: Type.Array(EmailEntry) }),
  phones: Type.Array(Closed({ value: Str('Phone number'), is_dnd: Type.Boolean() })),
  linkedin: Str('Full LinkedIn profile URL'),
  social_media: Closed({
    linkedin: PersonSocialAccount,
    github: PersonSocialAccount,
    twitter: PersonSocialAccount,
    facebook: PersonSocialAccount,
    youtube: PersonSocialAccount,
    pintrest: PersonSocialAccount,
  }),
  location: Strings('Place names'),
  department: Str(),
  seniority: Str(),
  gender: Str(),
  skills: Strings(),
  education: Closed({ field: Str(), degree: Str(), date_range: Str(), school_name: Str() }),
  keywords: Strings(),
  secondary_position: Type.Array(SecondaryPosition),
};

const PersonFields = Closed(PersonProperties);

/** A person as stored and served; `id` is required on import. */
export const Person = Type.Object(
  { id: RecordId, ...PersonFields.properties },
  { additionalProperties: false, $id: 'Person', title: 'Person' },
);
export type Person = Static<typeof Person>;
