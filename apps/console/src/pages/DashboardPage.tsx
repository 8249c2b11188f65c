import { Anchor, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiQuery } from '../api/queries';
import type { AccountUsage } from '../api/types';
import { RequestStatus } from '../components/RequestStatus';
import { useDayRange } from '../components/usage/day-range';
import { DayRangePicker } from '../components/usage/DayRangePicker';
import { UsageCharts } from '../components/usage/UsageCharts';
import { UsageTable } from '../components/usage/UsageTable';

const EVERYTHING = { tokens: true, images: true };

/** Every application of the account at once: totals, calls and cost per day, and usage per application and model. */
export default function DashboardPage() {
  const { t, i18n } = useTranslation();
  const range = useDayRange();
  const usage = useQuery({ ...apiQuery<AccountUsage>(`/usage?${range.query}`), enabled: range.valid });
  const number = new Intl.NumberFormat(i18n.language);
  const data = range.valid ? usage.data : undefined;
  return (
    <Stack>
      <Title order={2}>{t('dashboard.title')}</Title>
      <DayRangePicker range={range} exportHref="/usage/export" />
      {range.valid && <RequestStatus error={usage.error} answered={usage.data !== undefined} />}
      {data && (
        <>
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="dashboard-totals">
            {[
              [t('usage.calls'), number.format(data.total.calls)],
              [t('usage.errors'), number.format(data.total.errors)],
              [t('usage.inputTokens'), number.format(data.total.prompt_tokens)],
              [t('usage.outputTokens'), number.format(data.total.completion_tokens)],
              [t('usage.images'), number.format(data.total.images)],
              [`${t('usage.cost')} (${data.currency})`, data.total.cost],
            ].map(([label, value]) => (
              <Paper key={label} withBorder p="sm">
                <Text size="xs" c="dimmed">
                  {label}
                </Text>
                <Text fw={700} size="lg">
                  {value}
                </Text>
              </Paper>
            ))}
          </SimpleGrid>
          <UsageCharts byDay={data.by_day} from={data.from} to={data.to} show={EVERYTHING} />
          <Title order={3} size="h4">
            {t('dashboard.byApp')}
          </Title>
          {data.by_app.length === 0 ? (
            <Text c="dimmed">{t('dashboard.noApps')}</Text>
          ) : (
            <UsageTable
              testId="usage-by-app"
              first={t('dashboard.application')}
              rows={data.by_app.map((app) => ({
                label: (
                  <Anchor component={Link} to={`/applications/${app.app_id}/usage`}>
                    {app.name}
                  </Anchor>
                ),
                totals: app,
              }))}
              total={data.total}
              currency={data.currency}
              show={EVERYTHING}
            />
          )}
          <Title order={3} size="h4">
            {t('usage.byModel')}
          </Title>
          {data.by_model.length === 0 ? (
            <Text c="dimmed">{t('usage.noData')}</Text>
          ) : (
            <UsageTable
              testId="dashboard-by-model"
              first={t('models.model')}
              rows={data.by_model.map((row) => ({ label: row.model, totals: row }))}
              total={data.total}
              currency={data.currency}
              show={EVERYTHING}
            />
          )}
        </>
      )}
    </Stack>
  );
}
