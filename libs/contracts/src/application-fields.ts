import { CAPABILITIES, Capability } from './endpoints';
import { echoed } from './echoed';
import { isValidIpEntry } from './ip-entry';

/**
 * The fields of an application as the console API takes them, with the rules both the API and the console's forms
 * check: one table, so a form refuses exactly what the API would, with the same words.
 */
export const APPLICATION_TYPES = ['web', 'mobile', 'backend'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

/** Longest text, in characters. */
const TEXT_FIELDS = { name: 100, description: 1000, usage_scenario: 1000, callback_url: 2048 } as const;
/** Largest whole number; 0 means unlimited for the limits. */
export const NUMBER_FIELDS = {
  expected_volume: 1e12,
  daily_call_limit: 1e12,
  concurrency_limit: 100_000,
  requests_per_minute: 1e9,
  token_quota: 1e15,
} as const;
const MAX_IP_WHITELIST_ENTRIES = 100;
/** The longest IP entry written out: a full IPv6 address with a prefix length is 43 characters. */
const MAX_IP_ENTRY_CHARS = 64;
const MAX_SCOPE_MODELS = 100;

/** A money budget's period: a UTC day or a UTC month. */
export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
/** The largest budget, in units of the catalog currency: its nanos stay exact JS integers, with room for the overshoot. */
export const MAX_BUDGET_AMOUNT = 1_000_000;
/** A decimal of at most 9 places (1 nano), no sign or exponent: kept exact as integer nanos. */
const AMOUNT_PATTERN = /^\d{1,7}(\.\d{1,9})?$/;
/** How many days kept request and response bodies live (`body_retention_days`), and the default. */
export const BODY_RETENTION_DAYS = { min: 1, max: 30, default: 7 } as const;

export type TextField = keyof typeof TEXT_FIELDS;
export type NumberField = keyof typeof NUMBER_FIELDS;
export type ApplicationField =
  | TextField
  | NumberField
  | 'type'
  | 'ip_whitelist'
  | 'scope.capabilities'
  | 'scope.models'
  | 'budget_amount'
  | 'budget_period'
  | 'log_bodies'
  | 'body_retention_days';

/**
 * An application's fields on the wire, as the console API takes them (POST and PATCH /console/api/applications): the
 * console's form sends all of them, and the API's DTOs implement this shape, so the two cannot drift apart.
 */
export type ApplicationFields = { [F in TextField]: string } & { [F in NumberField]: number } & {
  type: ApplicationType;
  ip_whitelist: string[];
  scope: { capabilities: string[]; models: string[] };
  /** A money budget in the catalog currency, as an exact decimal ("12.50"); "" or "0" removes it. */
  budget_amount?: string;
  /** The budget's period; `month` when left out. */
  budget_period?: BudgetPeriod;
  /** Keep each call's request and response bodies (capped, images left out) for `body_retention_days`; off by default. */
  log_bodies?: boolean;
  /** Days kept bodies live, 1–30; 7 when never set. */
  body_retention_days?: number;
};

/** What is wrong with a field's value: a rule and what it needs, for a message in any language. */
export type FieldProblem =
  | { rule: 'required' }
  | { rule: 'notText' }
  | { rule: 'tooLong'; max: number }
  | { rule: 'notWholeNumber' }
  | { rule: 'negative' }
  | { rule: 'tooLarge'; max: number }
  | { rule: 'belowMin'; min: number }
  | { rule: 'notBoolean' }
  | { rule: 'notOneOf'; allowed: readonly string[] }
  | { rule: 'notList' }
  | { rule: 'tooMany'; max: number }
  | { rule: 'notIpEntry'; entry: string }
  | { rule: 'notHttpUrl' }
  | { rule: 'notAmount'; max: number };

/** The problem with `value` as the application's `field`, or null; `undefined` is "not set" and always fine. */
export function applicationFieldProblem(field: ApplicationField, value: unknown): FieldProblem | null {
  if (value === undefined) return null;
  if (field in TEXT_FIELDS) return textProblem(field as TextField, value);
  if (field in NUMBER_FIELDS) return numberProblem(NUMBER_FIELDS[field as NumberField], value);
  switch (field) {
    case 'type':
      return APPLICATION_TYPES.includes(value as ApplicationType)
        ? null
        : { rule: 'notOneOf', allowed: APPLICATION_TYPES };
    case 'ip_whitelist':
      return listProblem(value, MAX_IP_WHITELIST_ENTRIES, (entry) =>
        entry.length > MAX_IP_ENTRY_CHARS
          ? { rule: 'tooLong', max: MAX_IP_ENTRY_CHARS }
          : isValidIpEntry(entry)
            ? null
            : { rule: 'notIpEntry', entry },
      );
    case 'scope.capabilities':
      return listProblem(value, CAPABILITIES.length, (entry) =>
        CAPABILITIES.includes(entry as Capability) ? null : { rule: 'notOneOf', allowed: CAPABILITIES },
      );
    case 'budget_amount':
      return typeof value === 'string' &&
        (value === '' || (AMOUNT_PATTERN.test(value) && Number(value) <= MAX_BUDGET_AMOUNT))
        ? null
        : { rule: 'notAmount', max: MAX_BUDGET_AMOUNT };
    case 'budget_period':
      return BUDGET_PERIODS.includes(value as BudgetPeriod) ? null : { rule: 'notOneOf', allowed: BUDGET_PERIODS };
    case 'log_bodies':
      return typeof value === 'boolean' ? null : { rule: 'notBoolean' };
    case 'body_retention_days':
      return typeof value === 'number' && Number.isInteger(value) && value < BODY_RETENTION_DAYS.min
        ? { rule: 'belowMin', min: BODY_RETENTION_DAYS.min }
        : numberProblem(BODY_RETENTION_DAYS.max, value);
    case 'scope.models':
      return listProblem(value, MAX_SCOPE_MODELS, (entry) =>
        entry.length > 200 ? { rule: 'tooLong', max: 200 } : null,
      );
    default:
      return null;
  }
}

/** The message the API answers with for a problem, in English. */
export function describeFieldProblem(field: string, problem: FieldProblem): string {
  switch (problem.rule) {
    case 'required':
      return `${field} is required`;
    case 'notText':
      return `${field} must be text`;
    case 'tooLong':
      return `${field} must be at most ${problem.max} characters`;
    case 'notWholeNumber':
      return `${field} must be a whole number`;
    case 'negative':
      return `${field} must be 0 or more`;
    case 'tooLarge':
      return `${field} must be at most ${problem.max}`;
    case 'belowMin':
      return `${field} must be ${problem.min} or more`;
    case 'notBoolean':
      return `${field} must be true or false`;
    case 'notOneOf':
      return `${field} must be one of: ${problem.allowed.join(', ')}`;
    case 'notList':
      return `${field} must be a list`;
    case 'tooMany':
      return `${field} takes at most ${problem.max} entries`;
    case 'notIpEntry':
      return `${field}: "${echoed(problem.entry)}" is not an IPv4/IPv6 address or CIDR range`;
    case 'notHttpUrl':
      return `${field} must be an http or https URL`;
    case 'notAmount':
      return `${field} must be an amount such as 12.50, with at most 9 decimal places, from 0 to ${problem.max}`;
  }
}

function textProblem(field: TextField, value: unknown): FieldProblem | null {
  if (typeof value !== 'string') return { rule: 'notText' };
  if (field === 'name' && value.trim() === '') return { rule: 'required' };
  if (value.length > TEXT_FIELDS[field]) return { rule: 'tooLong', max: TEXT_FIELDS[field] };
  // An empty callback URL removes the callback.
  if (field === 'callback_url' && value !== '' && !isHttpUrl(value)) return { rule: 'notHttpUrl' };
  return null;
}

function numberProblem(max: number, value: unknown): FieldProblem | null {
  if (typeof value !== 'number' || !Number.isInteger(value)) return { rule: 'notWholeNumber' };
  if (value < 0) return { rule: 'negative' };
  if (value > max) return { rule: 'tooLarge', max };
  return null;
}

function listProblem(
  value: unknown,
  max: number,
  entryProblem: (entry: string) => FieldProblem | null,
): FieldProblem | null {
  if (!Array.isArray(value)) return { rule: 'notList' };
  if (value.length > max) return { rule: 'tooMany', max };
  for (const entry of value) {
    if (typeof entry !== 'string') return { rule: 'notText' };
    const problem = entryProblem(entry);
    if (problem) return problem;
  }
  return null;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A field's rule as JSON Schema, for the API's OpenAPI document: the same limits, told to a client in advance. */
export function applicationFieldSchema(field: ApplicationField): Record<string, unknown> {
  if (field === 'name') return { type: 'string', minLength: 1, maxLength: TEXT_FIELDS.name, pattern: '\\S' };
  if (field === 'callback_url')
    return {
      type: 'string',
      maxLength: TEXT_FIELDS.callback_url,
      description: 'An http or https URL; an empty string removes the callback.',
    };
  if (field in TEXT_FIELDS) return { type: 'string', maxLength: TEXT_FIELDS[field as TextField] };
  if (field in NUMBER_FIELDS) return { type: 'integer', minimum: 0, maximum: NUMBER_FIELDS[field as NumberField] };
  const list = (maxItems: number, items: Record<string, unknown>) => ({ type: 'array', maxItems, items });
  switch (field) {
    case 'type':
      return { enum: [...APPLICATION_TYPES] };
    case 'ip_whitelist':
      return list(MAX_IP_WHITELIST_ENTRIES, {
        type: 'string',
        maxLength: MAX_IP_ENTRY_CHARS,
        description: 'An IPv4 or IPv6 address or CIDR range.',
      });
    case 'scope.capabilities':
      return list(CAPABILITIES.length, { enum: [...CAPABILITIES] });
    case 'budget_amount':
      return {
        type: 'string',
        pattern: AMOUNT_PATTERN.source,
        description: `An amount of the catalog currency, at most ${MAX_BUDGET_AMOUNT}; "" or "0" removes the budget.`,
      };
    case 'budget_period':
      return { enum: [...BUDGET_PERIODS] };
    case 'log_bodies':
      return { type: 'boolean', description: 'Keep request and response bodies (capped, images left out).' };
    case 'body_retention_days':
      return { type: 'integer', minimum: BODY_RETENTION_DAYS.min, maximum: BODY_RETENTION_DAYS.max };
    default:
      return list(MAX_SCOPE_MODELS, { type: 'string', maxLength: 200 });
  }
}
