import { BarChart, LineChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { SimpleGrid, Stack, Title } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { UsageSeries } from '../../api/types';
import { daysBefore } from '../dates';

interface ChartDay {
  day: string;
  calls: number;
  errors: number;
  input: number;
  output: number;
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
      input: found?.prompt_tokens ?? 0,
      output: found?.completion_tokens ?? 0,
      images: found?.images ?? 0,
      cost: Number(found?.cost ?? 0),
    });
  }
  return points;
}

/** Which charts to draw: tokens for chat and embeddings, images for image editing; calls and cost always. */
export interface ChartChoice {
  tokens: boolean;
  images: boolean;
}

export function UsageCharts({
  byDay,
  from,
  to,
  show,
}: {
  byDay: UsageSeries['by_day'];
  from: string;
  to: string;
  show: ChartChoice;
}) {
  const { t } = useTranslation();
  const days = useMemo(() => chartDays(byDay, from, to), [byDay, from, to]);
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Stack gap={4} data-testid="chart-calls">
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
      {show.tokens && (
        <Stack gap={4} data-testid="chart-tokens">
          <Title order={3} size="h5">
            {t('usage.tokens')}
          </Title>
          <BarChart
            h={220}
            data={days}
            dataKey="day"
            type="stacked"
            series={[
              { name: 'input', label: t('usage.inputTokens'), color: 'cyan.6' },
              { name: 'output', label: t('usage.outputTokens'), color: 'blue.8' },
            ]}
            withLegend
          />
        </Stack>
      )}
      {show.images && (
        <Stack gap={4} data-testid="chart-images">
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
      )}
      <Stack gap={4} data-testid="chart-cost">
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
  );
}
