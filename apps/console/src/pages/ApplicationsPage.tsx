import { Anchor, Button, Group, Progress, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Application } from '../api/types';
import { useQuery } from '@tanstack/react-query';
import { apiQuery } from '../api/queries';
import { DataTable } from '../components/DataTable';
import { StatusBadge } from '../components/StatusBadge';
import { RequestStatus } from '../components/RequestStatus';

export function ApplicationsPage() {
  const { t, i18n } = useTranslation();
  // Deleted applications stay as records; they are listed only when asked for.
  const [showRevoked, setShowRevoked] = useState(false);
  const { data, error } = useQuery(
    apiQuery<{ data: Application[] }>(showRevoked ? '/applications?status=all' : '/applications'),
  );
  const number = new Intl.NumberFormat(i18n.language);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t('apps.title')}</Title>
        <Button component={Link} to="/applications/new">
          {t('apps.create')}
        </Button>
      </Group>
      <Switch
        label={t('apps.showRevoked')}
        checked={showRevoked}
        onChange={(event) => setShowRevoked(event.currentTarget.checked)}
      />
      <RequestStatus error={error} answered={data !== undefined && data !== null} />
      {data && data.data.length === 0 && <Text c="dimmed">{t('apps.empty')}</Text>}
      {data && data.data.length > 0 && (
        <DataTable
          minWidth={560}
          striped
          highlightOnHover
          head={[t('apps.name'), t('apps.type'), t('apps.today'), t('apps.status')]}
          rows={data.data.map((app) => {
            const calls = app.calls_today ?? 0;
            const limit = app.daily_call_limit;
            return [
              <Anchor component={Link} to={`/applications/${app.id}`}>
                {app.name}
              </Anchor>,
              t(`form.types.${app.type}`),
              <Stack gap={2} miw={160}>
                <Text size="sm">
                  {number.format(calls)} / {limit > 0 ? number.format(limit) : t('apps.unlimited')}
                </Text>
                {limit > 0 && (
                  <Progress value={Math.min(100, (calls / limit) * 100)} size="sm" aria-label={t('apps.today')} />
                )}
              </Stack>,
              <StatusBadge status={app.status} />,
            ];
          })}
        />
      )}
    </Stack>
  );
}
