import { Value } from '@sinclair/typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCompanies, generatePeople } from '../../src/generate/index.js';
import { isValidAbn, isValidAcn } from '../../src/identifiers/abn.js';
import { Company } from '../../src/schemas/company.js';
import { Person } from '../../src/schemas/person.js';

const opts = { companies: 800, people: 3000, seed: 2024 };
let companies: Company[];
let people: Person[];

beforeAll(() => {
  companies = [...generateCompanies(opts)];
  people = [...generatePeople(opts)];
});

const SENIORITIES = [
  'Board Member / Company Director',
  'Owner / Founder',
  'C-Suite / Partner',
  'VP/Director / Head of',
  'Manager',
  'Other',
  'No Data Available',
];
const DEPARTMENTS = [
  'General Management',
  'Sales',
  'Trades',
  'Operations',
  'Engineering & Technical',
  'Human Resources',
  'Customer Service',
  'Medicine & Healthcare',
  'Research & Analysis',
  'Legal',
  'Marketing',
  'Education & Training',
  'Consulting',
  'Finance',
  'Product',
  'Other',
  'No Data Available',
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const role = (month: number, year: number) => `${MONTHS[month - 1]} '${String(year).slice(-2)} - Present`;

describe('generated records', () => {
  it('validate against the Company and Person schemas', () => {
    const badCompany = companies.find((c) => !Value.Check(Company, c));
    expect(badCompany && [...Value.Errors(Company, badCompany)].slice(0, 3)).toBeUndefined();
    const badPerson = people.find((p) => !Value.Check(Person, p));
    expect(badPerson && [...Value.Errors(Person, badPerson)].slice(0, 3)).toBeUndefined();
  });

  it('carry ABNs and ACNs whose checksums hold', () => {
    for (const { industry_codes: codes } of companies) {
      expect(isValidAbn(codes!.abn!), codes!.abn!).toBe(true);
      if (codes!.acn !== null) {
        expect(isValidAcn(codes!.acn!), codes!.acn!).toBe(true);
        expect(codes!.abn!.slice(2)).toBe(codes!.acn);
      }
    }
    expect(companies.filter((c) => c.industry_codes!.acn !== null).length).toBeGreaterThan(
      opts.companies / 2,
    );
  });

  it('mint ids in the f/fp + 12 digit schemes', () => {
    expect(companies.every((c) => /^f\d{12}$/.test(c.id))).toBe(true);
    expect(people.every((p) => /^fp\d{12}$/.test(p.id))).toBe(true);
  });

  it('give every company a website on its fqdn and a nextGen block with every part', () => {
    for (const c of companies) {
      expect(c.website).toMatch(new RegExp(`^https://(www\\.)?${c.fqdn!.replaceAll('.', '\\.')}$`));
      expect(c.fqdn).toMatch(/\.(com\.au|net\.au|au|co\.nz|nz|com)$/);
      expect(Object.keys(c.nextGen!)).toEqual([
        'technographics',
        'website',
        'social_media',
        'reviews_rating',
        'id',
        'web_traffic',
      ]);
      expect(typeof c.nextGen!.reviews_rating!.url).toBe('number');
      expect(c.nextGen!.reviews_rating!.overall_rating).toMatch(/^\d\.\d$/);
    }
  });

  it('put work e-mails on the current company’s domain', () => {
    const fqdnById = new Map(companies.map((c) => [c.id, c.fqdn!]));
    for (const p of people) {
      const fqdn = fqdnById.get(p.current_company!.id!);
      expect(fqdn, p.current_company!.id!).toBeDefined();
      expect(p.emails!.work!.length).toBeGreaterThan(0);
      for (const email of p.emails!.work!) expect(email!.value!.endsWith(`@${fqdn}`)).toBe(true);
    }
  });

  it('summarise the current company exactly as the company record has it', () => {
    const byId = new Map(companies.map((c) => [c.id, c]));
    for (const p of people.slice(0, 500)) {
      const c = byId.get(p.current_company!.id!)!;
      expect(p.current_company).toMatchObject({
        name: c.name,
        size: c.company_size,
        website: c.website,
        industry: c.industries,
        linkedin: c.linkedin,
      });
      const phones = [
        ...p.current_company!.main_phones!,
        ...p.current_company!.other_phones!,
        ...p.current_company!.mobile_phones!,
      ];
      expect(phones).toEqual(c.phones);
    }
  });

  it('state time_in_current_role consistently with month and year joined', () => {
    for (const p of people) {
      if (p.year_joined === null) {
        expect([p.month_joined, p.time_in_current_role]).toEqual([null, null]);
      } else {
        expect(p.month_joined).toBeGreaterThanOrEqual(1);
        expect(p.month_joined).toBeLessThanOrEqual(12);
        expect(p.time_in_current_role).toBe(role(p.month_joined!, p.year_joined!));
      }
      for (const s of p.secondary_position ?? []) {
        expect(typeof s!.year_joined).toBe('string');
        expect(s!.time_in_current_role).toBe(role(s!.month_joined!, Number(s!.year_joined)));
      }
    }
    expect(role(1, 2023)).toBe("Jan '23 - Present");
  });

  it('place secondary positions at other generated companies, matching their facts', () => {
    const byId = new Map(companies.map((c) => [c.id, c]));
    let seen = 0;
    for (const p of people) {
      const positions = p.secondary_position ?? [];
      expect(positions.length).toBeLessThanOrEqual(2);
      for (const s of positions) {
        seen++;
        const c = byId.get(s!.company_id!);
        expect(c, s!.company_id!).toBeDefined();
        expect(s!.company_id).not.toBe(p.current_company!.id);
        expect([s!.company_name, s!.company_size, s!.company_website, s!.company_linkedin]).toEqual([
          c!.name,
          c!.company_size,
          c!.website,
          c!.linkedin,
        ]);
        expect(c!.industries).toContain(s!.company_industry);
      }
    }
    expect(seen).toBeGreaterThan(people.length / 5);
  });

  it('use only the contract’s seniority and department values', () => {
    for (const p of people) {
      expect(SENIORITIES).toContain(p.seniority);
      expect(DEPARTMENTS).toContain(p.department);
      for (const s of p.secondary_position ?? []) {
        expect(SENIORITIES).toContain(s!.seniority);
        expect(DEPARTMENTS).toContain(s!.department);
      }
    }
  });

  it('leave nullable fields null at realistic rates, never all or none', () => {
    for (const field of ['middle_name', 'description', 'skills', 'keywords', 'position'] as const) {
      const nulls = people.filter((p) => p[field] === null).length;
      expect(nulls, field).toBeGreaterThan(0);
      expect(nulls, field).toBeLessThan(people.length * 0.7);
    }
  });

  it('give people all six social networks with the specification’s types', () => {
    for (const p of people) {
      const networks = p.social_media!;
      expect(Object.keys(networks)).toEqual([
        'linkedin',
        'github',
        'twitter',
        'facebook',
        'youtube',
        'pintrest',
      ]);
      expect(typeof networks.linkedin!.handle).toBe('number');
      expect(typeof networks.linkedin!.connections).toBe('string');
    }
  });

  it('write Australian and New Zealand phone numbers in familiar formats', () => {
    const formats = [
      /^\+61 [2378] \d{4} \d{4}$/,
      /^\(0[2378]\) \d{4} \d{4}$/,
      /^0[2378] \d{4} \d{4}$/,
      /^04\d{2} \d{3} \d{3}$/,
      /^\+61 4\d{2} \d{3} \d{3}$/,
      /^1[38]00 \d{3} \d{3}$/,
      /^\+64 \d \d{3} \d{4}$/,
      /^\(0\d\) \d{3} \d{4}$/,
      /^0\d \d{3} \d{4}$/,
      /^02[127] \d{3} \d{4}$/,
      /^\+64 2[127] \d{3} \d{4}$/,
      /^0800 \d{3} \d{3}$/,
    ];
    const phones = [
      ...companies.flatMap((c) => c.phones!),
      ...people.flatMap((p) => p.phones!.map((x) => x!.value!)),
    ];
    for (const phone of phones)
      expect(
        formats.some((f) => f.test(phone!)),
        phone!,
      ).toBe(true);
  });
});
