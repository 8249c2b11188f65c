import { Badge, Button, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFailureToast } from '../api/use-error-text';
import { notify } from './notify';
import { post } from '../api/client';
import type { WebhookDeliveryOutcome } from '@gateway/contracts';
import type { WebhookDeliveryView } from '../api/types';
import { usePagedQuery } from '../api/queries';
import { DataTable } from './DataTable';
import { formatTime } from './dates';
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
  const { t } = useTranslation();
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
        minWidth={1180}
        head={[
          t('usage.time'),
          t('webhooks.event'),
          t('usage.task'),
          t('webhooks.url'),
          t('webhooks.attempt'),
          t('webhooks.status'),
          t('webhooks.reason'),
          t('webhooks.nextTry'),
          t('webhooks.duration'),
          '',
        ]}
        rows={records.map((delivery) => [
          formatTime(delivery.created_at),
          delivery.event,
          delivery.task_id,
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            {delivery.url || '—'}
          </Text>,
          delivery.attempts
            ? t('webhooks.attemptOf', { attempt: delivery.attempt, attempts: delivery.attempts })
            : delivery.attempt,
          <Badge variant="filled" color={OUTCOME_COLORS[delivery.outcome]}>
            {t(`webhooks.outcomes.${delivery.outcome}`)}
          </Badge>,
          deliveryReason(delivery),
          formatTime(delivery.next_attempt_at),
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

/** What the receiver answered, or why nothing was delivered, as the attempt recorded it. */
function deliveryReason(delivery: WebhookDeliveryView): string {
  const status = delivery.http_status !== null ? `HTTP ${delivery.http_status}` : undefined;
  if (status && delivery.error) return `${status}: ${delivery.error}`;
  return status ?? delivery.error ?? '—';
}
