// The headers people give their columns, normalised, and the lookup parameters each may feed. Only the
// parameters an operation accepts are offered, so a parameter added to an operation is used here by adding
// its aliases (some below wait for parameters still to come).

/** Normalised header → the parameters its column may give; the fewer it lists, the more specific it is. */
export type ColumnAliases = Readonly<Record<string, readonly string[]>>;

const aliases = (headers: string[], params: readonly string[]) =>
  Object.fromEntries(headers.map((header) => [header, params]));

// A plain "Email" may hold either kind of address: it is looked up as both, and a column naming one kind
// ("Work Email", "Personal Email") is preferred for that kind.
const EITHER_EMAIL = ['work_email', 'personal_email'];
const EITHER_EMAIL_SHA256 = ['work_email_sha256', 'personal_email_sha256'];

export const PEOPLE_COLUMNS: ColumnAliases = {
  ...aliases(['email', 'emailaddress', 'mail', 'contactemail', 'emails'], EITHER_EMAIL),
  ...aliases(
    [
      'workemail',
      'workemailaddress',
      'businessemail',
      'businessemailaddress',
      'companyemail',
      'professionalemail',
      'officeemail',
      'corporateemail',
    ],
    ['work_email'],
  ),
  ...aliases(['personalemail', 'personalemailaddress', 'privateemail', 'homeemail'], ['personal_email']),
  ...aliases(['emailsha256', 'sha256', 'hashedemail', 'emailhash', 'sha256email'], EITHER_EMAIL_SHA256),
  ...aliases(['workemailsha256', 'workemailhash', 'hashedworkemail'], ['work_email_sha256']),
  ...aliases(['personalemailsha256', 'personalemailhash', 'hashedpersonalemail'], ['personal_email_sha256']),
  ...aliases(
    [
      'linkedin',
      'linkedinurl',
      'linkedinprofile',
      'linkedinprofileurl',
      'linkedinlink',
      'profileurl',
      'personlinkedinurl',
      'lnurl',
    ],
    ['ln_url'],
  ),
  ...aliases(['linkedinslug', 'lnslug', 'linkedinhandle', 'linkedinusername', 'linkedinid'], ['ln_slug']),
  // Never a bare "ID": a CRM's own ids would be looked up as ours. Our id comes back as enrich_id.
  ...aliases(['enrichid', 'enrichpersonid'], ['id']),
  ...aliases(['name', 'fullname', 'contactname', 'personname'], ['name']),
  ...aliases(['firstname', 'givenname', 'forename'], ['first_name']),
  ...aliases(['lastname', 'surname', 'familyname'], ['last_name']),
  ...aliases(['enrichcompanyid'], ['company_id']),
  ...aliases(
    ['companylinkedin', 'companylinkedinurl', 'companylinkedinslug', 'companylinkedinpage'],
    ['company_ln_slug'],
  ),
  ...aliases(
    ['website', 'domain', 'companywebsite', 'companydomain', 'companyurl', 'emaildomain'],
    ['company_domain'],
  ),
  ...aliases(
    ['company', 'companyname', 'organisation', 'organization', 'employer', 'accountname', 'currentcompany'],
    ['company_name'],
  ),
};

export const COMPANY_COLUMNS: ColumnAliases = {
  ...aliases(
    ['website', 'websiteurl', 'companywebsite', 'companyurl', 'web', 'webaddress', 'homepage', 'url', 'www'],
    ['website'],
  ),
  ...aliases(
    ['domain', 'domainname', 'companydomain', 'websitedomain', 'emaildomain', 'fqdn', 'hostname'],
    ['fqdn'],
  ),
  ...aliases(['abn', 'abnnumber', 'companyabn', 'australianbusinessnumber'], ['abn']),
  ...aliases(
    [
      'linkedin',
      'linkedinurl',
      'companylinkedin',
      'companylinkedinurl',
      'linkedinpage',
      'linkedincompanypage',
      'linkedincompanyurl',
      'lnurl',
    ],
    ['ln_url'],
  ),
  ...aliases(['linkedinslug', 'lnslug', 'companylinkedinslug', 'linkedinhandle', 'linkedinid'], ['ln_slug']),
  ...aliases(['enrichid', 'enrichcompanyid'], ['id']),
  ...aliases(
    ['name', 'companyname', 'company', 'organisation', 'organization', 'businessname', 'accountname'],
    ['name'],
  ),
};

/**
 * A header as the alias tables key it: case, spaces, dashes and underscores ignored (and a stray byte order
 * mark or zero-width space).
 * @example normaliseHeader(' Work_E-mail ') // 'workemail'
 */
export const normaliseHeader = (header: string) =>
  header
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\-_\u200b\ufeff]+/g, '');
