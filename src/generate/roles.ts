// What people in each department are called, know and studied.
import type { Department } from '../vocabulary/departments.js';

export interface DepartmentProfile {
  /** Used in "Head of <area>" and "<area> Manager". */
  area: string;
  /** The C-suite title for the department. */
  chief: readonly string[];
  /** Individual-contributor titles. */
  roles: readonly string[];
  skills: readonly string[];
  /** [field of study, degree] pairs. */
  study: readonly (readonly [string, string])[];
}

const profile = (
  area: string,
  chief: string[],
  roles: string[],
  skills: string[],
  study: [string, string][],
): DepartmentProfile => ({ area, chief, roles, skills, study });

export const DEPARTMENT_PROFILES: Record<Department, DepartmentProfile> = {
  'General Management': profile(
    'Operations',
    ['Chief Executive Officer', 'Managing Director', 'Chief Operating Officer'],
    ['General Manager', 'Business Manager', 'Executive Assistant', 'Office Manager'],
    ['Leadership', 'Strategic Planning', 'Business Strategy', 'P&L Management', 'Stakeholder Management'],
    [
      ['Business Administration', 'Master of Business Administration'],
      ['Commerce', 'Bachelor of Commerce'],
    ],
  ),
  Sales: profile(
    'Sales',
    ['Chief Revenue Officer', 'Chief Commercial Officer'],
    ['Account Manager', 'Business Development Manager', 'Sales Representative', 'Sales Consultant'],
    ['B2B Sales', 'Negotiation', 'Salesforce', 'Account Management', 'Lead Generation', 'Cold Calling'],
    [
      ['Marketing', 'Bachelor of Business'],
      ['Commerce', 'Bachelor of Commerce'],
    ],
  ),
  Trades: profile(
    'Site',
    ['Managing Director'],
    ['Electrician', 'Plumber', 'Carpenter', 'Apprentice Electrician', 'Site Supervisor', 'Fitter and Turner'],
    [
      'Electrical Wiring',
      'Plumbing',
      'Carpentry',
      'White Card',
      'Work Health and Safety',
      'Blueprint Reading',
    ],
    [
      ['Electrotechnology', 'Certificate III'],
      ['Plumbing', 'Certificate III'],
      ['Carpentry', 'Certificate III'],
    ],
  ),
  Operations: profile(
    'Operations',
    ['Chief Operating Officer'],
    ['Operations Coordinator', 'Logistics Coordinator', 'Warehouse Supervisor', 'Procurement Officer'],
    ['Supply Chain Management', 'Logistics', 'Process Improvement', 'Lean Six Sigma', 'Inventory Management'],
    [
      ['Supply Chain Management', 'Bachelor of Business'],
      ['Logistics', 'Diploma'],
    ],
  ),
  'Engineering & Technical': profile(
    'Engineering',
    ['Chief Technology Officer', 'Chief Information Officer'],
    ['Software Engineer', 'Civil Engineer', 'DevOps Engineer', 'Mechanical Engineer', 'Data Engineer'],
    ['TypeScript', 'Python', 'AWS', 'AutoCAD', 'Kubernetes', 'SQL', 'Project Engineering', 'React'],
    [
      ['Software Engineering', 'Bachelor of Engineering (Honours)'],
      ['Computer Science', 'Bachelor of Science'],
    ],
  ),
  'Human Resources': profile(
    'People & Culture',
    ['Chief People Officer'],
    ['HR Business Partner', 'Recruitment Consultant', 'Payroll Officer', 'Talent Acquisition Specialist'],
    ['Recruiting', 'Employee Relations', 'Fair Work Act', 'Payroll', 'Onboarding', 'Workday'],
    [
      ['Human Resource Management', 'Bachelor of Business'],
      ['Psychology', 'Bachelor of Arts'],
    ],
  ),
  'Customer Service': profile(
    'Customer Experience',
    ['Chief Customer Officer'],
    ['Customer Service Representative', 'Client Services Officer', 'Receptionist', 'Support Specialist'],
    ['Customer Service', 'Zendesk', 'Complaint Handling', 'Call Centre', 'Customer Experience'],
    [
      ['Business', 'Diploma'],
      ['Communications', 'Bachelor of Communication'],
    ],
  ),
  'Medicine & Healthcare': profile(
    'Clinical Services',
    ['Chief Medical Officer'],
    ['Registered Nurse', 'General Practitioner', 'Physiotherapist', 'Practice Manager', 'Dental Assistant'],
    ['Patient Care', 'Clinical Research', 'AHPRA Registration', 'Aged Care', 'Medical Terminology'],
    [
      ['Nursing', 'Bachelor of Nursing'],
      ['Medicine', 'Doctor of Medicine'],
      ['Physiotherapy', 'Bachelor of Physiotherapy'],
    ],
  ),
  'Research & Analysis': profile(
    'Insights',
    ['Chief Data Officer'],
    ['Data Analyst', 'Research Analyst', 'Business Analyst', 'Research Scientist'],
    ['Data Analysis', 'Power BI', 'R', 'Statistics', 'Market Research', 'Excel'],
    [
      ['Statistics', 'Bachelor of Science'],
      ['Economics', 'Bachelor of Economics'],
      ['Chemistry', 'Doctor of Philosophy'],
    ],
  ),
  Legal: profile(
    'Legal',
    ['General Counsel', 'Partner'],
    ['Lawyer', 'Solicitor', 'Paralegal', 'Senior Associate', 'Legal Counsel'],
    ['Litigation', 'Contract Law', 'Conveyancing', 'Legal Research', 'Corporate Law'],
    [
      ['Law', 'Bachelor of Laws'],
      ['Law', 'Juris Doctor'],
    ],
  ),
  Marketing: profile(
    'Marketing',
    ['Chief Marketing Officer'],
    ['Marketing Coordinator', 'Digital Marketing Specialist', 'Content Writer', 'Graphic Designer'],
    ['Digital Marketing', 'SEO', 'Google Ads', 'Social Media Marketing', 'Copywriting', 'HubSpot'],
    [
      ['Marketing', 'Bachelor of Business'],
      ['Communications', 'Bachelor of Communication'],
    ],
  ),
  'Education & Training': profile(
    'Learning',
    ['Principal'],
    ['Teacher', 'Trainer and Assessor', 'Lecturer', 'Learning Designer', 'Tutor'],
    [
      'Curriculum Development',
      'Classroom Management',
      'Training Delivery',
      'Instructional Design',
      'TAE40122',
    ],
    [
      ['Education', 'Bachelor of Education'],
      ['Training and Assessment', 'Certificate IV'],
    ],
  ),
  Consulting: profile(
    'Advisory',
    ['Partner', 'Managing Partner'],
    ['Consultant', 'Senior Consultant', 'Management Consultant', 'Analyst'],
    ['Management Consulting', 'Business Transformation', 'Change Management', 'Workshop Facilitation'],
    [
      ['Commerce', 'Bachelor of Commerce'],
      ['Business Administration', 'Master of Business Administration'],
    ],
  ),
  Finance: profile(
    'Finance',
    ['Chief Financial Officer'],
    ['Accountant', 'Financial Analyst', 'Bookkeeper', 'Accounts Payable Officer', 'Financial Controller'],
    ['Financial Reporting', 'Xero', 'MYOB', 'Budgeting', 'Tax', 'Financial Modelling', 'CPA'],
    [
      ['Accounting', 'Bachelor of Commerce'],
      ['Finance', 'Master of Applied Finance'],
    ],
  ),
  Product: profile(
    'Product',
    ['Chief Product Officer'],
    ['Product Manager', 'Product Owner', 'UX Designer', 'Product Designer'],
    ['Product Management', 'Agile', 'Jira', 'User Research', 'Figma', 'Roadmapping'],
    [
      ['Design', 'Bachelor of Design'],
      ['Information Technology', 'Bachelor of Information Technology'],
    ],
  ),
  Other: profile(
    'Administration',
    ['Chief Executive Officer'],
    ['Administration Officer', 'Office Administrator', 'Project Coordinator', 'Volunteer Coordinator'],
    ['Administration', 'Microsoft Office', 'Scheduling', 'Data Entry', 'Project Coordination'],
    [
      ['Business', 'Certificate IV'],
      ['Arts', 'Bachelor of Arts'],
    ],
  ),
  'No Data Available': profile(
    'Operations',
    ['Chief Executive Officer'],
    ['Team Member', 'Contractor', 'Staff Member', 'Associate'],
    ['Teamwork', 'Communication', 'Microsoft Office', 'Problem Solving'],
    [
      ['General Studies', 'Bachelor of Arts'],
      ['Science', 'Bachelor of Science'],
    ],
  ),
};

export const BOARD_TITLES = [
  'Non-Executive Director',
  'Board Member',
  'Company Director',
  'Chair',
  'Independent Director',
];
export const OWNER_TITLES = [
  'Owner',
  'Founder',
  'Co-Founder',
  'Founder & CEO',
  'Director',
  'Managing Director',
  'Principal',
];
