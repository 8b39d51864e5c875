// How often each change happens in a month: rates near the Australian labour market's, about 2% of people a month.

/**
 * A person in work: one draw a month picks at most one of these, in this order. Job mobility: about 8% of
 * employed Australians change employer in a year (ABS, Job Mobility, Feb 2024), so 0.7% a month; about
 * 2.5% leave the workforce in a year (retirement, study, care).
 */
export const IN_WORK = {
  /** The profile leaves the data set (deleted, merged, no longer sourced). */
  removed: 0.001,
  departure: 0.002,
  move: 0.007,
  /** One step up Other → Manager → VP/Director → C-Suite, at the same employer. */
  promotion: 0.003,
  /** A new title at the same seniority and employer. */
  retitle: 0.001,
} as const;

/** A person out of work: removed as above, or back in work (about a year out on average). */
export const OUT_OF_WORK = { removed: 0.001, joined: 0.06 } as const;

/** New people in the data set a month, as a share of the people it held. */
export const NEWCOMERS = 0.003;

/**
 * A company: one draw a month picks at most one. About 0.15% of businesses close a month (ABS counts
 * some 10% of businesses exiting a year, most without employees); a headcount change moves the
 * employee count (and sometimes the size band) and is common, renames are rare.
 */
export const COMPANY = { closed: 0.0015, renamed: 0.001, headcount: 0.02 } as const;

/** New companies a month, as a share of the companies the data set held. */
export const FOUNDED = 0.002;

/** Of a closed company's people, the share who move to another company (the rest leave the workforce). */
export const CLOSURE_MOVES = 0.5;

/** Of people who join a company, the share who list its main phone as well as their own (as generated). */
export const OFFICE_PHONE = 0.3;
