import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiQuery, usePagedQuery } from '../api/queries';
import type { BillingRecordView, UsageSeries } from '../api/types';
import { BudgetMeter } from './BudgetMeter';
import { DataTable } from './DataTable';
import { formatTime } from './dates';
import { RequestStatus } from './RequestStatus';
import { useDayRange } from './usage/day-range';
import { DayRangePicker } from './usage/DayRangePicker';
import { UsageCharts } from './usage/UsageCharts';
import { UsageTable } from './usage/UsageTable';

/** One application's usage: presets and dates, charts for what it may call, totals per model, per-image billing. */
export default function UsagePanel({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const range = useDayRange();
  const usage = useQuery({
    ...apiQuery<UsageSeries>(`/applications/${appId}/usage?${range.query}`),
    enabled: range.valid,
  });
  const show = useMemo(() => {
    const capabilities = usage.data?.capabilities ?? [];
    // An empty scope allows every capability.
    const may = (capability: string) => capabilities.length === 0 || capabilities.includes(capability);
    return { tokens: may('chat') || may('embeddings'), images: may('image-edit') };
  }, [usage.data]);
  const models = useMemo(() => [...(usage.data?.by_model ?? [])].sort((a, b) => b.calls - a.calls), [usage.data]);
  // The billing records are read once asked for (the button), then follow the range.
  const [billingAsked, setBillingAsked] = useState(false);
  const billing = usePagedQuery<BillingRecordView>(`/applications/${appId}/billing?${range.query}`, {
    enabled: billingAsked && range.valid,
  });
  const loadBilling = () => (billingAsked ? void billing.refetch() : setBillingAsked(true));
  return (
    <Stack>
      <DayRangePicker range={range} exportHref={`/applications/${appId}/usage/export`} />
      {range.valid && <RequestStatus error={usage.error} answered={usage.data !== undefined} />}
      <BudgetMeter appId={appId} />
      {range.valid && usage.data && (
        <UsageCharts byDay={usage.data.by_day} from={usage.data.from} to={usage.data.to} show={show} />
      )}
      <Title order={3} size="h4">
        {t('usage.byModel')}
      </Title>
      {!range.valid || !usage.data || models.length === 0 ? (
        <Text c="dimmed">{t('usage.noData')}</Text>
      ) : (
        <UsageTable
          testId="usage-by-model"
          first={t('models.model')}
          rows={models.map((row) => ({ label: row.model, totals: row }))}
          total={usage.data.total}
          currency={usage.data.currency}
          show={show}
        />
      )}
      <Group justify="space-between">
        <Title order={3} size="h4">
          {t('usage.billing')}
        </Title>
        <Button
          variant="light"
          onClick={loadBilling}
          disabled={!range.valid}
          loading={billing.isFetching && !billing.isFetchingNextPage}
        >
          {t('usage.showBilling')}
        </Button>
      </Group>
      {billingAsked && billing.isSuccess && billing.records.length === 0 && (
        <Text c="dimmed" data-testid="billing-empty">
          {t('usage.noBilling')}
        </Text>
      )}
      {billing.records.length > 0 && (
        <DataTable
          minWidth={560}
          head={[t('usage.task'), t('models.model'), t('usage.imageIndex'), t('usage.unitPrice'), t('usage.time')]}
          rows={billing.records.map((record) => [
            record.task_id,
            record.model,
            record.image_index,
            `${record.unit_price} ${record.currency}`,
            formatTime(record.created_at),
          ])}
        />
      )}
      <RequestStatus error={billing.error} answered />
      {billing.hasNextPage && (
        <Button variant="subtle" onClick={() => void billing.fetchNextPage()} loading={billing.isFetchingNextPage}>
          {t('usage.more')}
        </Button>
      )}
    </Stack>
  );
}
