import { applicationFieldProblem, BUDGET_PERIODS, BudgetPeriod, MAX_BUDGET_AMOUNT } from '@gateway/contracts';
import { Group, Select, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface BudgetCeiling {
  amount: string;
  period: BudgetPeriod;
}

/**
 * An account's money budget across its applications: an exact amount in the catalog's currency, typed and checked
 * as the application form's budget is, and its UTC day or month. The amount is saved when the field is left, the
 * period when it is chosen (with the amount on screen); an empty amount lifts the budget.
 */
export function BudgetCeilingInput({
  email,
  value,
  onSave,
}: {
  email: string;
  value: BudgetCeiling | null;
  onSave: (budget: { budget_amount: string | null; budget_period?: BudgetPeriod }) => void;
}) {
  const { t } = useTranslation();
  const [amount, setAmount] = useState(value?.amount ?? '');
  const [period, setPeriod] = useState<BudgetPeriod>(value?.period ?? 'month');
  // Checked when the field is left, as the application form checks its budget: no error while typing "12.".
  const [left, setLeft] = useState(false);
  const label = `${t('admin.budget')} ${email}`;
  const typed = amount.trim();
  const problem = applicationFieldProblem('budget_amount', typed);
  const save = (nextPeriod: BudgetPeriod) => {
    if (problem) return;
    if (typed === '') {
      if (value) onSave({ budget_amount: null });
      return;
    }
    if (typed !== value?.amount || nextPeriod !== value.period)
      onSave({ budget_amount: typed, budget_period: nextPeriod });
  };
  return (
    <Group gap={4} wrap="nowrap" align="flex-start">
      <TextInput
        aria-label={label}
        size="xs"
        w={120}
        inputMode="decimal"
        placeholder={t('admin.noBudget')}
        value={amount}
        error={left && problem && t('problems.notAmount', { field: t('admin.budget'), max: MAX_BUDGET_AMOUNT })}
        // The default error red is too light on white for WCAG AA: the message is darker, the typed value stays plain.
        errorProps={{ c: 'red.9' }}
        styles={{ input: { color: 'var(--mantine-color-text)' } }}
        onChange={(event) => {
          setAmount(event.currentTarget.value);
          setLeft(false);
        }}
        onBlur={() => {
          setLeft(true);
          save(period);
        }}
      />
      <Select
        aria-label={`${t('admin.budgetPeriod')} ${email}`}
        size="xs"
        w={110}
        allowDeselect={false}
        data={BUDGET_PERIODS.map((each) => ({ value: each, label: t(`admin.budgetPeriods.${each}`) }))}
        value={period}
        onChange={(next) => {
          if (!next || next === period) return;
          setPeriod(next);
          save(next);
        }}
      />
    </Group>
  );
}
