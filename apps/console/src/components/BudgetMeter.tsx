import type { BudgetState } from '@gateway/contracts';
import { Progress, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiQuery } from '../api/queries';
import { formatTime } from './dates';

/**
 * Spent / budget for the application's budget and its owner's, in their current UTC day or month. The amounts are
 * the exact decimals the API sent; they become numbers only to draw the bar.
 */
export function BudgetMeter({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const state = useQuery(apiQuery<BudgetState>(`/applications/${appId}/budget`));
  if (!state.data || state.data.data.length === 0) return null;
  const { currency } = state.data;
  return (
    <Stack gap="xs" data-testid="budget-meter">
      <Title order={3} size="h4">
        {t('budget.title')}
      </Title>
      {state.data.data.map((budget) => {
        const percent = Math.min(100, (Number(budget.spent) / Number(budget.amount)) * 100);
        const label = t(`budget.${budget.scope}`, { period: t(`budget.periods.${budget.period}`) });
        return (
          <Stack gap={4} key={budget.scope}>
            <Text size="sm" fw={500}>
              {label}
            </Text>
            <Progress
              value={percent}
              color={percent >= 100 ? 'red' : percent >= 80 ? 'orange' : 'teal'}
              aria-label={label}
            />
            <Text size="sm">
              {t('budget.spentOf', { spent: budget.spent, amount: budget.amount, currency })}
              {' · '}
              {t('budget.resets', { at: formatTime(budget.resets_at) })}
            </Text>
          </Stack>
        );
      })}
    </Stack>
  );
}
