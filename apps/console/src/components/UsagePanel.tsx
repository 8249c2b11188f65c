import { BarChart, LineChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { Button, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BillingRecordView, UsageSeries, UsageTotals } from '../api/types';
import { useQuery } from '@tanstack/react-query';
import { apiQuery, usePagedQuery } from '../api/queries';
import { BudgetMeter } from './BudgetMeter';
import { DataTable } from './DataTable';
import { daysBefore, utcDay } from './dates';
import { RequestStatus } from './RequestStatus';

interface ChartDay {
  day: string;
  calls: number;
  errors: number;
  tokens: number;
  images: number;
  cost: number;
}

/**
 * One chart point for each day of the range (days without calls at zero), from the API's per-day totals. The cost
 * becomes a number only to be plotted: the API adds money up in integers, and nothing here adds it again.
 */
function chartDays(days: UsageSeries['by_day'], from: string, to: string): ChartDay[] {
  const totals = new Map(days.map((day) => [day.day, day]));
  const points: ChartDay[] = [];
  for (let day = from; day <= to; day = daysBefore(day, -1)) {
    const found = totals.get(day);
    points.push({
      day,
      calls: found?.calls ?? 0,
      errors: found?.errors ?? 0,
      tokens: found ? found.prompt_tokens + found.completion_tokens : 0,
      images: found?.images ?? 0,
      cost: Number(found?.cost ?? 0),
    });
  }
  return points;
}

/** A row of the by-model table: counts formatted, the cost shown as the exact decimal the API sent. */
function tableRow(label: string, totals: UsageTotals, number: Intl.NumberFormat): string[] {
  return [
    label,
    ...[totals.calls, totals.errors, totals.prompt_tokens + totals.completion_tokens, totals.images].map((value) =>
      number.format(value),
    ),
    totals.cost,
  ];
}

function csvOf(records: BillingRecordView[]): string {
  const header = 'task_id,model,image_index,unit_price,currency,created_at';
  const quote = (value: string | number) =>
    /[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value);
  return [
    header,
    ...records.map((r) =>
      [r.task_id, r.model, r.image_index, r.unit_price, r.currency, r.created_at].map(quote).join(','),
    ),
  ].join('\n');
}

export default function UsagePanel({ appId }: { appId: string }) {
  const { t, i18n } = useTranslation();
  const [to, setTo] = useState(utcDay());
  const [from, setFrom] = useState(daysBefore(utcDay(), 29));
  const validRange = /^\d{4}-\d{2}-\d{2}$/.test(from) && /^\d{4}-\d{2}-\d{2}$/.test(to) && from <= to;
  const usage = useQuery({
    ...apiQuery<UsageSeries>(`/applications/${appId}/usage?from=${from}&to=${to}`),
    enabled: validRange,
  });
  const days = useMemo(() => chartDays(usage.data?.by_day ?? [], from, to), [usage.data, from, to]);
  const models = useMemo(() => [...(usage.data?.by_model ?? [])].sort((a, b) => b.calls - a.calls), [usage.data]);
  // The billing records are read once asked for (the button), then follow the range.
  const [billingAsked, setBillingAsked] = useState(false);
  const billing = usePagedQuery<BillingRecordView>(`/applications/${appId}/billing?from=${from}&to=${to}`, {
    enabled: billingAsked && validRange,
  });
  const loadBilling = () => (billingAsked ? void billing.refetch() : setBillingAsked(true));
  const exportCsv = () => {
    const url = URL.createObjectURL(new Blob([csvOf(billing.records)], { type: 'text/csv' }));
    const link = Object.assign(document.createElement('a'), {
      href: url,
      download: `billing-${appId}-${from}-${to}.csv`,
    });
    link.click();
    URL.revokeObjectURL(url);
  };
  const number = new Intl.NumberFormat(i18n.language);
  return (
    <Stack>
      <Group align="end">
        <TextInput
          label={t('usage.from')}
          type="date"
          value={from}
          max={to}
          onChange={(event) => setFrom(event.currentTarget.value)}
        />
        <TextInput
          label={t('usage.to')}
          type="date"
          value={to}
          min={from}
          onChange={(event) => setTo(event.currentTarget.value)}
        />
      </Group>
      <RequestStatus error={usage.error} answered={usage.data !== undefined} />
      <BudgetMeter appId={appId} />
      {usage.data && (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Stack gap={4}>
            <Title order={3} size="h5">
              {t('usage.calls')} / {t('usage.errors')}
            </Title>
            <LineChart
              h={220}
              data={days}
              dataKey="day"
              series={[
                { name: 'calls', label: t('usage.calls'), color: 'indigo.6' },
                { name: 'errors', label: t('usage.errors'), color: 'red.6' },
              ]}
              withLegend
            />
          </Stack>
          <Stack gap={4}>
            <Title order={3} size="h5">
              {t('usage.tokens')}
            </Title>
            <BarChart
              h={220}
              data={days}
              dataKey="day"
              series={[{ name: 'tokens', label: t('usage.tokens'), color: 'cyan.6' }]}
            />
          </Stack>
          <Stack gap={4}>
            <Title order={3} size="h5">
              {t('usage.images')}
            </Title>
            <BarChart
              h={220}
              data={days}
              dataKey="day"
              series={[{ name: 'images', label: t('usage.images'), color: 'grape.6' }]}
            />
          </Stack>
          <Stack gap={4}>
            <Title order={3} size="h5">
              {t('usage.cost')}
            </Title>
            <LineChart
              h={220}
              data={days}
              dataKey="day"
              series={[{ name: 'cost', label: t('usage.cost'), color: 'teal.6' }]}
            />
          </Stack>
        </SimpleGrid>
      )}
      <Title order={3} size="h4">
        {t('usage.byModel')}
      </Title>
      {models.length === 0 || !usage.data ? (
        <Text c="dimmed">{t('usage.noData')}</Text>
      ) : (
        <DataTable
          minWidth={560}
          data-testid="usage-by-model"
          head={[
            t('models.model'),
            t('usage.calls'),
            t('usage.errors'),
            t('usage.tokens'),
            t('usage.images'),
            `${t('usage.cost')} (${usage.data.currency})`,
          ]}
          rows={[
            ...models.map((row) => tableRow(row.model, row, number)),
            tableRow(t('usage.total'), usage.data.total, number),
          ]}
        />
      )}
      <Group justify="space-between">
        <Title order={3} size="h4">
          {t('usage.billing')}
        </Title>
        <Group>
          <Button variant="light" onClick={loadBilling} loading={billing.isFetching && !billing.isFetchingNextPage}>
            {t('usage.billing')}
          </Button>
          <Button variant="default" onClick={exportCsv} disabled={billing.records.length === 0}>
            {t('usage.exportCsv')}
          </Button>
        </Group>
      </Group>
      {billing.records.length > 0 && (
        <DataTable
          minWidth={560}
          head={[t('usage.task'), t('models.model'), t('usage.imageIndex'), t('usage.unitPrice'), t('usage.time')]}
          rows={billing.records.map((record) => [
            record.task_id,
            record.model,
            record.image_index,
            `${record.unit_price} ${record.currency}`,
            new Date(record.created_at).toLocaleString(i18n.language),
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
