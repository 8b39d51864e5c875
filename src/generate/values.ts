// How often the generator picks each value of the enumerated fields, and the range labels the service shows
// (the contract's own lists are the vocabulary's: src/vocabulary/).
import type { Seniority } from '../vocabulary/seniorities.js';
import { weights } from './random.js';

export const SENIORITY_WEIGHTS = weights<Seniority>([
  ['Board Member / Company Director', 2],
  ['Owner / Founder', 5],
  ['C-Suite / Partner', 5],
  ['VP/Director / Head of', 9],
  ['Manager', 20],
  ['Other', 55],
  ['No Data Available', 4],
]);

/** Company size labels with their share of companies and the employee counts they span. */
export const COMPANY_SIZES = [
  { label: '1 - 10', weight: 34, min: 1, max: 10 },
  { label: '11 - 50', weight: 30, min: 11, max: 50 },
  { label: '51 - 200', weight: 18, min: 51, max: 200 },
  { label: '201 - 500', weight: 8, min: 201, max: 500 },
  { label: '501 - 1000', weight: 5, min: 501, max: 1000 },
  { label: '1000+', weight: 5, min: 1001, max: 40000 },
] as const;
export type CompanySize = (typeof COMPANY_SIZES)[number];

/** Revenue labels, ordered; a company's band follows its size. */
export const REVENUES = [
  '<$1M',
  '$1M - $10M',
  '$10M - $50M',
  '$50M - $100M',
  '$100M - $500M',
  '$500M - $1B',
  '>$1B+',
] as const;

export const COMPANY_TYPES = weights([
  ['Private company', 62],
  ['Public company', 6],
  ['Sole trader', 11],
  ['Partnership', 8],
  ['Trust', 6],
  ['Non-profit', 4],
  ['Government agency', 3],
]);

/** Types that are registered companies and so hold an ACN. */
export const INCORPORATED_TYPES = new Set(['Private company', 'Public company', 'Non-profit']);

export const DELIVERABILITY = weights([
  ['Deliverable', 86],
  ['Risky', 7],
  ['Undeliverable', 4],
  ['Unknown', 3],
]);

export const PERSONAL_EMAIL_DOMAINS = weights([
  ['gmail.com', 44],
  ['outlook.com', 10],
  ['hotmail.com', 9],
  ['icloud.com', 8],
  ['bigpond.com', 8],
  ['yahoo.com.au', 6],
  ['optusnet.com.au', 4],
  ['iinet.net.au', 4],
  ['live.com.au', 3],
  ['protonmail.com', 2],
  ['tpg.com.au', 2],
]);

export const NZ_PERSONAL_EMAIL_DOMAINS = ['xtra.co.nz', 'gmail.com', 'outlook.co.nz', 'hotmail.co.nz'];

/** Shared inbox local parts; no person's own address can take one of these. */
export const GENERIC_INBOXES = ['info', 'sales', 'hello', 'enquiries', 'admin', 'contact'];

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The generator's fixed "now", so output never depends on the clock. */
export const AS_OF = { year: 2025, month: 6 } as const;

export const TECHNOGRAPHICS: Readonly<Record<string, readonly string[]>> = {
  Analytics: ['Google Analytics 4', 'Google Tag Manager', 'Hotjar', 'Adobe Analytics', 'Mixpanel'],
  CMS: ['WordPress', 'Squarespace', 'Wix', 'Drupal', 'Webflow', 'Sitecore'],
  Ecommerce: ['Shopify', 'WooCommerce', 'BigCommerce', 'Magento', 'Neto'],
  Email: ['Microsoft 365', 'Google Workspace', 'Mailchimp', 'Campaign Monitor', 'SendGrid'],
  CRM: ['Salesforce', 'HubSpot', 'Zoho CRM', 'Pipedrive', 'Microsoft Dynamics 365'],
  Hosting: ['Amazon Web Services', 'Microsoft Azure', 'Google Cloud', 'Cloudflare', 'Netlify'],
  Accounting: ['Xero', 'MYOB', 'QuickBooks Online', 'NetSuite'],
  Payments: ['Stripe', 'PayPal', 'Afterpay', 'Zip', 'Square', 'Tyro'],
  'Customer Support': ['Zendesk', 'Intercom', 'Freshdesk', 'LiveChat'],
  'HR & Payroll': ['Employment Hero', 'Deputy', 'KeyPay', 'Workday', 'BambooHR'],
};

export const VC_FIRMS = [
  'Blackbird Ventures',
  'Square Peg Capital',
  'AirTree Ventures',
  'Main Sequence Ventures',
  'OneVentures',
  'Folklore Ventures',
  'Giant Leap',
  'Icehouse Ventures',
  'Movac',
  'Rampersand',
];

/** Names not in faker's en_AU lists, several with diacritics, so slugs exercise Unicode handling. */
export const WORLD_FIRST_NAMES = {
  female: [
    'Zoë',
    'Renée',
    'Chloé',
    'Māia',
    'Aroha',
    'Anh',
    'Mei',
    'Priya',
    'Sofía',
    'Ngaio',
    'Eleni',
    'Björk',
  ],
  male: ['José', 'Tāne', 'Wiremu', 'Minh', 'Wei', 'Arjun', 'Matías', 'Nikolaos', 'Søren', 'Jürgen', 'Rāwiri'],
};

export const WORLD_LAST_NAMES = [
  'García',
  'Nguyễn',
  'Trần',
  'Müller',
  'Pérez',
  'Ngata',
  'Te Whata',
  'Chen',
  'Wang',
  'Singh',
  'Patel',
  'Papadopoulos',
  'Rossi',
  'Kowalski',
  "O'Brien",
  'Núñez',
  'Løvaas',
  'Pōmare',
];
