import { Badge, Button, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFailureToast } from '../api/use-error-text';
import { notify } from './notify';
import { post } from '../api/client';
import type { WebhookDeliveryOutcome } from '@gateway/contracts';
import type { WebhookDeliveryView } from '../api/types';
import { usePagedQuery } from '../api/queries';
import { DataTable } from './DataTable';
import { RequestStatus } from './RequestStatus';

// Dark shades: white badge text on them passes WCAG AA contrast (Mantine's darkest orange does not, hence the hex).
const OUTCOME_COLORS: Record<WebhookDeliveryOutcome, string> = {
  delivered: 'teal.9',
  retry: '#b33c00',
  rejected: 'red.9',
  gone: 'gray.7',
  skipped: 'gray.7',
};

/** The application's webhook delivery attempts, newest first, each task's webhook redeliverable. */
export function WebhooksPanel({ appId }: { appId: string }) {
  const { t, i18n } = useTranslation();
  const showFailure = useFailureToast();
  const { records, hasNextPage, fetchNextPage, isFetchingNextPage, error, data } = usePagedQuery<WebhookDeliveryView>(
    `/applications/${appId}/webhooks`,
  );
  const answered = data !== undefined;
  const redeliver = async (delivery: WebhookDeliveryView) => {
    try {
      await post(`/applications/${appId}/webhooks/${delivery.id}/redeliver`);
      notify(t('webhooks.queued'), 'teal');
    } catch (error) {
      showFailure(error);
    }
  };
  if (error || !answered) return <RequestStatus error={error} answered={false} />;
  if (records.length === 0) return <Text c="dimmed">{t('webhooks.none')}</Text>;
  return (
    <Stack>
      <DataTable
        minWidth={720}
        head={[
          t('usage.time'),
          t('usage.task'),
          t('webhooks.attempt'),
          t('webhooks.status'),
          t('webhooks.httpCode'),
          t('webhooks.duration'),
          '',
        ]}
        rows={records.map((delivery) => [
          new Date(delivery.created_at).toLocaleString(i18n.language),
          delivery.task_id,
          delivery.attempt,
          <Badge variant="filled" color={OUTCOME_COLORS[delivery.outcome]}>
            {t(`webhooks.outcomes.${delivery.outcome}`)}
          </Badge>,
          delivery.http_status ?? '—',
          delivery.duration_ms !== undefined ? `${delivery.duration_ms} ms` : '—',
          <Button size="compact-xs" variant="light" onClick={() => void redeliver(delivery)}>
            {t('webhooks.redeliver')}
          </Button>,
        ])}
      />
      {hasNextPage && (
        <Button variant="subtle" loading={isFetchingNextPage} onClick={() => void fetchNextPage()}>
          {t('usage.more')}
        </Button>
      )}
    </Stack>
  );
}
