import {
  APPLICATION_TYPES,
  ApplicationField,
  BODY_RETENTION_DAYS,
  applicationFieldProblem,
  BUDGET_PERIODS,
  CAPABILITIES,
  FieldProblem,
  NUMBER_FIELDS,
  NumberField,
} from '@gateway/contracts';
import {
  Alert,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useErrorText } from '../api/use-error-text';
import { ApiError } from '../api/client';
import type { ApplicationInput } from '../api/types';
import { LimitInput } from './LimitInput';
import { useQuery } from '@tanstack/react-query';
import { apiQuery } from '../api/queries';

/** The form's values: the API's fields, with the whitelist as the text a person types (one entry a line). */
type FormValues = Omit<ApplicationInput, 'ip_whitelist'> & { ip_whitelist: string };

export const EMPTY_APPLICATION: ApplicationInput = {
  name: '',
  description: '',
  type: 'backend',
  usage_scenario: '',
  expected_volume: 0,
  scope: { capabilities: [], models: [] },
  daily_call_limit: 0,
  concurrency_limit: 0,
  requests_per_minute: 0,
  token_quota: 0,
  budget_amount: '',
  budget_period: 'month',
  ip_whitelist: [],
  callback_url: '',
  log_bodies: false,
  body_retention_days: BODY_RETENTION_DAYS.default,
};

/** The editable fields of an application as the API shows it. */
export function inputOf(
  app: Omit<ApplicationInput, 'callback_url' | 'budget_amount' | 'budget_period'> & {
    callback_url: string | null;
    budget?: { amount: string; period: 'day' | 'month' } | null;
  },
): ApplicationInput {
  return {
    name: app.name,
    description: app.description,
    type: app.type,
    usage_scenario: app.usage_scenario,
    expected_volume: app.expected_volume,
    scope: { capabilities: app.scope.capabilities, models: app.scope.models },
    daily_call_limit: app.daily_call_limit,
    concurrency_limit: app.concurrency_limit,
    requests_per_minute: app.requests_per_minute,
    token_quota: app.token_quota,
    budget_amount: app.budget?.amount ?? '',
    budget_period: app.budget?.period ?? 'month',
    ip_whitelist: app.ip_whitelist,
    callback_url: app.callback_url ?? '',
    log_bodies: app.log_bodies,
    body_retention_days: app.body_retention_days,
    // Every field of the form, optional ones included: a field added to ApplicationFields must be copied here too.
  } satisfies { [F in keyof ApplicationInput]-?: unknown };
}

const FORM_FIELDS = new Set([
  ...Object.keys(EMPTY_APPLICATION).filter((field) => field !== 'scope'),
  'scope.capabilities',
  'scope.models',
]);

const NUMBER_FIELD_NAMES = Object.keys(NUMBER_FIELDS) as NumberField[];

function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * Create and edit: every field of an application, checked as the user types by the rules the API applies
 * (`@gateway/contracts`), with the API's messages. What only the server can know (a model outside the catalog, a
 * ceiling, a callback host that resolves to a private address) comes back as its error under the field it names.
 */
export function ApplicationForm({
  initial,
  submitLabel,
  onSubmit,
}: {
  initial: ApplicationInput;
  submitLabel: string;
  onSubmit: (input: ApplicationInput) => Promise<void>;
}) {
  const { t } = useTranslation();
  const explain = useErrorText();
  const [problem, setProblem] = useState<string | null>(null);
  // A refusal of the whole form is shown beside the submit button and focused: read out, and in view on any screen.
  const problemRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!problem) return;
    problemRef.current?.focus();
    problemRef.current?.scrollIntoView({ block: 'center' });
  }, [problem]);
  const catalog = useQuery(apiQuery<{ data: { id: string; aliases: string[] }[] }>('/models'));
  const modelIds = (catalog.data?.data ?? []).flatMap((model) => [model.id, ...model.aliases]);
  const says = (field: ApplicationField, label: string) => (value: unknown) => {
    const found = applicationFieldProblem(field, value);
    return found ? describe(label, found) : null;
  };
  const describe = (label: string, found: FieldProblem) =>
    t(`problems.${found.rule}`, {
      field: label,
      ...('max' in found ? { max: found.max } : {}),
      ...('min' in found ? { min: found.min } : {}),
      ...('entry' in found ? { entry: found.entry } : {}),
      ...('allowed' in found ? { allowed: found.allowed.join(', ') } : {}),
    });
  const form = useForm<FormValues>({
    mode: 'uncontrolled',
    validateInputOnBlur: true,
    initialValues: {
      ...initial,
      callback_url: initial.callback_url ?? '',
      ip_whitelist: initial.ip_whitelist.join('\n'),
    },
    validate: {
      name: says('name', t('form.name')),
      description: says('description', t('form.description')),
      usage_scenario: says('usage_scenario', t('form.usageScenario')),
      expected_volume: says('expected_volume', t('form.expectedVolume')),
      daily_call_limit: says('daily_call_limit', t('form.dailyCallLimit')),
      concurrency_limit: says('concurrency_limit', t('form.concurrencyLimit')),
      requests_per_minute: says('requests_per_minute', t('form.requestsPerMinute')),
      token_quota: says('token_quota', t('form.tokenQuota')),
      budget_amount: says('budget_amount', t('form.budgetAmount')),
      ip_whitelist: (text: string) => says('ip_whitelist', t('form.ipWhitelist'))(linesOf(text)),
      callback_url: says('callback_url', t('form.callbackUrl')),
      body_retention_days: says('body_retention_days', t('form.bodyRetentionDays')),
      scope: { models: says('scope.models', t('form.models')) },
    },
  });
  const submit = form.onSubmit(async (values) => {
    setProblem(null);
    const input: ApplicationInput = {
      ...values,
      ...Object.fromEntries(NUMBER_FIELD_NAMES.map((field) => [field, Number(values[field]) || 0])),
      ip_whitelist: linesOf(values.ip_whitelist),
      body_retention_days: Number(values.body_retention_days),
    };
    try {
      await onSubmit(input);
    } catch (error) {
      // The API names the field (`scope.models[0]`, `ip_whitelist[2]`): the message goes under that field.
      const field = error instanceof ApiError ? error.param?.replace(/\[\d+\]$/, '') : undefined;
      if (field && FORM_FIELDS.has(field)) form.setFieldError(field, explain(error));
      else setProblem(explain(error));
    }
  });
  const number = (field: NumberField, label: string, hint?: string) => (
    <LimitInput label={label} description={hint} key={form.key(field)} {...form.getInputProps(field)} />
  );
  return (
    <form onSubmit={submit} onChange={() => setProblem(null)} noValidate>
      <Stack maw={760}>
        <TextInput label={t('form.name')} required key={form.key('name')} {...form.getInputProps('name')} />
        <Textarea
          label={t('form.description')}
          autosize
          minRows={2}
          key={form.key('description')}
          {...form.getInputProps('description')}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Select
            label={t('form.type')}
            allowDeselect={false}
            data={APPLICATION_TYPES.map((type) => ({ value: type, label: t(`form.types.${type}`) }))}
            key={form.key('type')}
            {...form.getInputProps('type')}
          />
          {number('expected_volume', t('form.expectedVolume'))}
        </SimpleGrid>
        <Textarea
          label={t('form.usageScenario')}
          autosize
          minRows={2}
          key={form.key('usage_scenario')}
          {...form.getInputProps('usage_scenario')}
        />
        <Checkbox.Group
          label={t('form.capabilities')}
          description={t('form.capabilitiesHint')}
          key={form.key('scope.capabilities')}
          {...form.getInputProps('scope.capabilities')}
        >
          <Group mt="xs">
            {CAPABILITIES.map((capability) => (
              <Checkbox key={capability} value={capability} label={capability} />
            ))}
          </Group>
        </Checkbox.Group>
        <MultiSelect
          label={t('form.models')}
          description={t('form.modelsHint')}
          data={[...new Set([...modelIds, ...form.getValues().scope.models])]}
          searchable
          clearable
          key={form.key('scope.models')}
          {...form.getInputProps('scope.models')}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {number('daily_call_limit', t('form.dailyCallLimit'), t('form.limitHint'))}
          {number('concurrency_limit', t('form.concurrencyLimit'), t('form.limitHint'))}
          {number('requests_per_minute', t('form.requestsPerMinute'), t('form.limitHint'))}
          {number('token_quota', t('form.tokenQuota'), t('form.limitHint'))}
        </SimpleGrid>
        {/* A money budget: spending per UTC day or month, refused with 429 BudgetExceeded once used up. */}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={t('form.budgetAmount')}
            description={t('form.budgetHint')}
            inputMode="decimal"
            key={form.key('budget_amount')}
            {...form.getInputProps('budget_amount')}
          />
          <Select
            label={t('form.budgetPeriod')}
            allowDeselect={false}
            data={BUDGET_PERIODS.map((period) => ({ value: period, label: t(`form.budgetPeriods.${period}`) }))}
            key={form.key('budget_period')}
            {...form.getInputProps('budget_period')}
          />
        </SimpleGrid>
        <Textarea
          label={t('form.ipWhitelist')}
          description={t('form.ipWhitelistHint')}
          autosize
          minRows={2}
          key={form.key('ip_whitelist')}
          {...form.getInputProps('ip_whitelist')}
        />
        <TextInput
          label={t('form.callbackUrl')}
          description={t('form.callbackUrlHint')}
          type="url"
          key={form.key('callback_url')}
          {...form.getInputProps('callback_url')}
        />
        {/* Off by default: bodies may hold personal data, so keeping them is the owner's choice, for a set time. */}
        <Switch
          label={t('form.logBodies')}
          description={t('form.logBodiesHint')}
          key={form.key('log_bodies')}
          {...form.getInputProps('log_bodies', { type: 'checkbox' })}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <LimitInput
            label={t('form.bodyRetentionDays')}
            description={t('form.bodyRetentionHint')}
            min={BODY_RETENTION_DAYS.min}
            key={form.key('body_retention_days')}
            {...form.getInputProps('body_retention_days')}
          />
        </SimpleGrid>
        {problem && (
          <Alert color="red" role="alert" ref={problemRef} tabIndex={-1}>
            {problem}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={form.submitting}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
