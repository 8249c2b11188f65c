import { Alert, Badge, Button, Loader, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from './notify';
import { get, post } from '../api/client';
import type { Page, WebhookDeliveryView } from '../api/types';
import { useRequest } from '../api/use-request';

// Dark shades: white badge text on them passes WCAG AA contrast.
const OUTCOME_COLORS: Record<string, string> = { delivered: 'teal.9', retry: 'orange.9', failed: 'red.9', gone: 'gray.7' };

/** The application's webhook delivery attempts, newest first, each task's webhook redeliverable. */
export function WebhooksPanel({ appId }: { appId: string }) {
  const { t, i18n } = useTranslation();
  const [extra, setExtra] = useState<{ records: WebhookDeliveryView[]; next: string | null } | null>(null);
  const first = useRequest(() => get<Page<WebhookDeliveryView>>(`/applications/${appId}/webhooks?limit=50`), [appId]);
  const records = [...(first.data?.data ?? []), ...(extra?.records ?? [])];
  const next = extra ? extra.next : first.data?.next ?? null;
  const more = async () => {
    const page = await get<Page<WebhookDeliveryView>>(`/applications/${appId}/webhooks?limit=50&cursor=${encodeURIComponent(next!)}`);
    setExtra({ records: [...(extra?.records ?? []), ...page.data], next: page.next });
  };
  const redeliver = async (delivery: WebhookDeliveryView) => {
    try {
      await post(`/applications/${appId}/webhooks/${delivery.id}/redeliver`);
      notify(t('webhooks.queued'), 'teal');
    } catch (error) {
      notify(t('errors.generic', { message: (error as Error).message }), 'red');
    }
  };
  if (first.error) return <Alert color="red" role="alert">{t('errors.generic', { message: first.error.message })}</Alert>;
  if (!first.data) return <Loader aria-label={t('common.loading')} />;
  if (records.length === 0) return <Text c="dimmed">{t('webhooks.none')}</Text>;
  return (
    <Stack>
      <Table.ScrollContainer minWidth={720}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('usage.time')}</Table.Th>
              <Table.Th>{t('usage.task')}</Table.Th>
              <Table.Th>{t('webhooks.attempt')}</Table.Th>
              <Table.Th>{t('webhooks.status')}</Table.Th>
              <Table.Th>{t('webhooks.httpCode')}</Table.Th>
              <Table.Th>{t('webhooks.duration')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {records.map((delivery) => (
              <Table.Tr key={delivery.id}>
                <Table.Td>{new Date(delivery.created_at).toLocaleString(i18n.language)}</Table.Td>
                <Table.Td>{delivery.task_id}</Table.Td>
                <Table.Td>{delivery.attempt}</Table.Td>
                <Table.Td><Badge variant="filled" color={OUTCOME_COLORS[delivery.outcome] ?? 'gray.7'}>{delivery.outcome}</Badge></Table.Td>
                <Table.Td>{delivery.http_status ?? '—'}</Table.Td>
                <Table.Td>{delivery.duration_ms !== undefined ? `${delivery.duration_ms} ms` : '—'}</Table.Td>
                <Table.Td><Button size="compact-xs" variant="light" onClick={() => redeliver(delivery)}>{t('webhooks.redeliver')}</Button></Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {next && <Button variant="subtle" onClick={more}>{t('usage.more')}</Button>}
    </Stack>
  );
}
