// Industries with their classification codes and the words companies in them use in names and keywords.
import type { Department } from '../vocabulary/departments.js';

export interface Industry {
  /** LinkedIn-style labels; the first is the primary one. */
  labels: readonly string[];
  anzsic: string;
  sic: string;
  naics: string;
  /** Words that follow a proper name in a trading name, e.g. "Harris Plumbing". */
  nameWords: readonly string[];
  keywords: readonly string[];
  /** Departments most of its people work in. */
  core: readonly Department[];
}

const industry = (
  labels: string[],
  [anzsic, sic, naics]: [string, string, string],
  nameWords: string[],
  keywords: string[],
  core: Department[],
): Industry => ({ labels, anzsic, sic, naics, nameWords, keywords, core });

export const INDUSTRIES: readonly Industry[] = [
  industry(
    ['Construction', 'Building Construction'],
    ['3020', '1542', '236220'],
    ['Constructions', 'Building Group', 'Builders', 'Projects', 'Homes'],
    ['commercial construction', 'residential building', 'project management', 'fit-out', 'renovations'],
    ['Trades', 'Operations', 'Engineering & Technical'],
  ),
  industry(
    ['Construction', 'Electrical and Plumbing Services'],
    ['3232', '1711', '238220'],
    ['Plumbing', 'Electrical', 'Air Conditioning', 'Gas & Plumbing', 'Electrics'],
    ['emergency plumbing', 'hot water', 'electrical contracting', 'solar installation', 'air conditioning'],
    ['Trades', 'Customer Service'],
  ),
  industry(
    ['IT Services and IT Consulting', 'Information Technology & Services'],
    ['7000', '7373', '541512'],
    ['Technology', 'Digital', 'IT Solutions', 'Systems', 'Cloud'],
    ['managed services', 'cloud migration', 'cyber security', 'Microsoft 365', 'IT support'],
    ['Engineering & Technical', 'Consulting', 'Customer Service'],
  ),
  industry(
    ['Software Development', 'Computer Software'],
    ['5420', '7372', '513210'],
    ['Software', 'Labs', 'Apps', 'Tech'],
    ['SaaS', 'mobile apps', 'API', 'platform', 'B2B software'],
    ['Engineering & Technical', 'Product', 'Sales'],
  ),
  industry(
    ['Accounting'],
    ['6932', '8721', '541211'],
    ['Accountants', 'Accounting', 'Advisory', 'Tax & Accounting'],
    ['tax returns', 'SMSF', 'bookkeeping', 'business advisory', 'Xero'],
    ['Finance', 'Consulting'],
  ),
  industry(
    ['Law Practice', 'Legal Services'],
    ['6931', '8111', '541110'],
    ['Lawyers', 'Legal', 'Law', 'Solicitors'],
    ['conveyancing', 'family law', 'commercial litigation', 'wills and estates', 'employment law'],
    ['Legal'],
  ),
  industry(
    ['Real Estate'],
    ['6720', '6531', '531210'],
    ['Realty', 'Property', 'Real Estate', 'Property Group'],
    ['property management', 'residential sales', 'leasing', 'auctions', 'commercial property'],
    ['Sales', 'Customer Service'],
  ),
  industry(
    ['Hospitals and Health Care', 'Medical Practices'],
    ['8511', '8011', '621111'],
    ['Medical Centre', 'Health', 'Family Practice', 'Clinic'],
    ['general practice', 'bulk billing', 'telehealth', 'allied health', 'preventive care'],
    ['Medicine & Healthcare', 'Customer Service'],
  ),
  industry(
    ['Mining', 'Mining & Metals'],
    ['0801', '1011', '212210'],
    ['Resources', 'Mining', 'Minerals', 'Metals'],
    ['iron ore', 'exploration', 'lithium', 'gold', 'mine services'],
    ['Engineering & Technical', 'Operations', 'Trades'],
  ),
  industry(
    ['Hospitality', 'Restaurants'],
    ['4511', '5812', '722511'],
    ['Kitchen', 'Cafe', 'Hospitality', 'Dining'],
    ['cafe', 'catering', 'functions', 'restaurant', 'specialty coffee'],
    ['Customer Service', 'Operations'],
  ),
  industry(
    ['Retail'],
    ['4251', '5651', '458110'],
    ['Retail', 'Store', 'Outfitters', 'Supply Co'],
    ['ecommerce', 'fashion', 'homewares', 'click and collect', 'retail'],
    ['Sales', 'Customer Service', 'Operations'],
  ),
  industry(
    ['Transportation, Logistics, Supply Chain and Storage'],
    ['4610', '4213', '484121'],
    ['Logistics', 'Freight', 'Transport', 'Couriers'],
    ['freight', 'warehousing', 'last mile delivery', '3PL', 'interstate transport'],
    ['Operations', 'Trades'],
  ),
  industry(
    ['Education', 'Professional Training and Coaching'],
    ['8101', '8249', '611519'],
    ['Training', 'Academy', 'College', 'Learning'],
    ['RTO', 'vocational training', 'short courses', 'apprenticeships', 'online learning'],
    ['Education & Training'],
  ),
  industry(
    ['Financial Services'],
    ['6419', '6199', '522390'],
    ['Capital', 'Finance', 'Wealth', 'Financial'],
    ['financial planning', 'home loans', 'superannuation', 'wealth management', 'insurance'],
    ['Finance', 'Sales'],
  ),
  industry(
    ['Advertising Services', 'Marketing & Advertising'],
    ['6940', '7311', '541810'],
    ['Marketing', 'Media', 'Creative', 'Agency'],
    ['digital marketing', 'SEO', 'social media', 'branding', 'content'],
    ['Marketing', 'Sales'],
  ),
  industry(
    ['Farming', 'Agriculture'],
    ['0144', '0212', '112111'],
    ['Pastoral', 'Farms', 'Agriculture', 'Produce'],
    ['beef cattle', 'wool', 'grain', 'agribusiness', 'horticulture'],
    ['Operations', 'Trades'],
  ),
  industry(
    ['Manufacturing', 'Machinery Manufacturing'],
    ['2499', '3599', '333999'],
    ['Engineering', 'Manufacturing', 'Industries', 'Fabrication'],
    ['metal fabrication', 'CNC machining', 'precision engineering', 'industrial equipment', 'steel'],
    ['Engineering & Technical', 'Trades', 'Operations'],
  ),
  industry(
    ['Business Consulting and Services', 'Management Consulting'],
    ['6962', '8742', '541611'],
    ['Consulting', 'Advisory', 'Partners', 'Strategy'],
    ['strategy', 'change management', 'operations', 'procurement', 'digital transformation'],
    ['Consulting', 'Research & Analysis'],
  ),
];

/** Made-up brand words and what may follow them, e.g. "Blue Wren Collective". */
export const BRAND_WORDS = [
  'Blue Wren',
  'Bright Path',
  'Red Kite',
  'Northstar',
  'Silver Fern',
  'True North',
  'Clearwater',
  'Greenleaf',
  'Saltbush',
  'Kookaburra',
  'Lyrebird',
  'Bluegum',
  'Spinifex',
  'Waratah',
  'Boab',
  'Kestrel',
  'Cobalt',
  'Keystone',
  'Lighthouse',
  'Compass',
  'Meridian',
  'Horizon',
  'Pinnacle',
  'Catalyst',
];
export const BRAND_TAILS = ['Group', 'Co', 'Collective', 'Partners', 'Studio', 'Labs', 'Works', 'Solutions'];

/** Words that open a trading name, e.g. "Harbour Logistics". */
export const NAME_PREFIXES = {
  Australia: [
    'Harbour',
    'Coastal',
    'Southern Cross',
    'Pacific',
    'Outback',
    'Bayside',
    'Northern',
    'Eastern',
    'Metro',
    'Summit',
    'Blue Mountains',
    'Wattle',
    'Banksia',
    'Ironbark',
    'Coral Coast',
    'Red Gum',
    'Anzac',
  ],
  'New Zealand': ['Kiwi', 'Tasman', 'Aotearoa', 'Southern Alps', 'Kauri', 'Pōhutukawa', 'Harbour', 'Pacific'],
} as const;
