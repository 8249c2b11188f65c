import { Alert, Code, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '../components/notify';
import { useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { patch } from '../api/client';
import { apiQuery, keyOf } from '../api/queries';
import type { Application, ApplicationInput } from '../api/types';
import { ApplicationForm, inputOf } from '../components/ApplicationForm';
import { ApiKeysPanel } from '../components/ApiKeysPanel';
import { CredentialsPanel } from '../components/CredentialsPanel';
import { DataTable } from '../components/DataTable';
import { StatusBadge } from '../components/StatusBadge';
import { QuickStart } from '../components/QuickStart';
import { RequestsPanel } from '../components/RequestsPanel';
import { WebhooksPanel } from '../components/WebhooksPanel';
import { RequestStatus } from '../components/RequestStatus';

// The charts library is the console's largest dependency: loaded only when the usage tab opens.
const UsagePanel = lazy(() => import('../components/UsagePanel'));
const PlaygroundPanel = lazy(() => import('../components/playground/PlaygroundPanel'));
const TABS = ['credentials', 'quick-start', 'usage', 'requests', 'webhooks', 'playground', 'settings'] as const;

export default function ApplicationPage() {
  const { t } = useTranslation();
  const params = useParams();
  const navigate = useNavigate();
  const { id } = params;
  if (!id) throw new Error('ApplicationPage is routed without an :id');
  const tab = TABS.find((name) => name === params['*']) ?? 'credentials';
  const queryClient = useQueryClient();
  const { data: app, error } = useQuery(apiQuery<Application>(`/applications/${id}`));
  // A change to the application shows in its page and in the list of applications.
  const reload = () => void queryClient.invalidateQueries({ queryKey: keyOf('/applications') });
  const saving = useMutation({
    mutationFn: (input: ApplicationInput) => patch(`/applications/${id}`, input),
    onSuccess: () => {
      notify(t('form.saved'), 'teal');
      reload();
    },
  });
  if (error || !app) return <RequestStatus error={error} answered={false} />;
  const save = async (input: ApplicationInput) => void (await saving.mutateAsync(input));
  return (
    <Stack>
      <Group gap="sm">
        <Title order={2}>{app.name}</Title>
        <StatusBadge status={app.status} />
      </Group>
      <Text size="sm">
        {t('detail.appId')}: <Code>{app.id}</Code>
      </Text>
      <Tabs value={tab} onChange={(value) => navigate(`/applications/${id}/${value}`)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="credentials">{t('detail.credentials')}</Tabs.Tab>
          <Tabs.Tab value="quick-start">{t('detail.quickStart')}</Tabs.Tab>
          <Tabs.Tab value="usage">{t('detail.usage')}</Tabs.Tab>
          <Tabs.Tab value="requests">{t('detail.requests')}</Tabs.Tab>
          <Tabs.Tab value="webhooks">{t('detail.webhooks')}</Tabs.Tab>
          <Tabs.Tab value="playground">{t('playground.tab')}</Tabs.Tab>
          <Tabs.Tab value="settings">{t('detail.settings')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="credentials" pt="md">
          <Stack>
            <ApiKeysPanel app={app} />
            <CredentialsPanel app={app} onChanged={reload} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="quick-start" pt="md">
          <QuickStart appId={app.id} />
        </Tabs.Panel>
        <Tabs.Panel value="usage" pt="md">
          <Suspense fallback={<Loader aria-label={t('common.loading')} />}>
            <UsagePanel appId={id} />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="requests" pt="md">
          <RequestsPanel appId={id} />
        </Tabs.Panel>
        <Tabs.Panel value="webhooks" pt="md">
          <WebhooksPanel appId={id} />
        </Tabs.Panel>
        <Tabs.Panel value="playground" pt="md">
          <Suspense fallback={<Loader aria-label={t('common.loading')} />}>
            <PlaygroundPanel app={app} />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="settings" pt="md">
          {app.status === 'revoked' ? (
            // A deleted application is a record: its settings are shown, not changed (the API answers 409).
            <Stack>
              <Alert color="gray">{t('apps.revokedReadOnly')}</Alert>
              <DataTable
                minWidth={480}
                head={[t('detail.settings'), '']}
                rows={[
                  [t('form.name'), app.name],
                  [t('form.description'), app.description || '—'],
                  [t('form.type'), t(`form.types.${app.type}`)],
                  [t('form.dailyCallLimit'), app.daily_call_limit || t('apps.unlimited')],
                  [t('form.concurrencyLimit'), app.concurrency_limit || t('apps.unlimited')],
                  [t('form.requestsPerMinute'), app.requests_per_minute || t('apps.unlimited')],
                  [t('form.tokenQuota'), app.token_quota || t('apps.unlimited')],
                  [t('form.ipWhitelist'), app.ip_whitelist.join(', ') || '—'],
                  [t('form.callbackUrl'), app.callback_url ?? '—'],
                  [t('form.logBodies'), app.log_bodies ? t('common.yes') : t('common.no')],
                  [t('form.bodyRetentionDays'), app.body_retention_days],
                ]}
              />
            </Stack>
          ) : (
            <ApplicationForm initial={inputOf(app)} submitLabel={t('form.save')} onSubmit={save} />
          )}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
