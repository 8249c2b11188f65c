import { Alert, Button, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { notify } from '../../components/notify';
import { get, post } from '../../api/client';
import { useRequest } from '../../api/use-request';

interface QueueState {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  workers: number;
}

interface FailedJob {
  id: string;
  queue: string;
  task_id: string | null;
  app_id: string | null;
  reason: string;
  attempts: number;
  failed_at: string | null;
}

/** The queues as BullMQ counts them, the workers connected to each, and recent failed jobs to retry. */
export default function SystemPage() {
  const { t, i18n } = useTranslation();
  const queues = useRequest(() => get<{ data: QueueState[] }>('/admin/system/queues'), []);
  const failed = useRequest(async () => {
    const names = (await get<{ data: QueueState[] }>('/admin/system/queues')).data.map((queue) => queue.name);
    const lists = await Promise.all(names.map((name) => get<{ data: FailedJob[] }>(`/admin/system/queues/${name}/failed?limit=20`)));
    return lists.flatMap((list) => list.data).sort((a, b) => (b.failed_at ?? '').localeCompare(a.failed_at ?? ''));
  }, []);
  const retry = async (job: FailedJob) => {
    try {
      await post(`/admin/system/queues/${job.queue}/jobs/${encodeURIComponent(job.id)}/retry`);
      notify(t('admin.retried'), 'teal');
      queues.reload();
      failed.reload();
    } catch (error) {
      notify(t('errors.generic', { message: (error as Error).message }), 'red');
    }
  };
  return (
    <Stack>
      <Title order={2}>{t('admin.system')}</Title>
      {queues.error && <Alert color="red" role="alert">{t('errors.generic', { message: queues.error.message })}</Alert>}
      {!queues.data && !queues.error && <Loader aria-label={t('common.loading')} />}
      {queues.data && (
        <Table.ScrollContainer minWidth={560}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.queue')}</Table.Th>
                <Table.Th>{t('admin.waiting')}</Table.Th>
                <Table.Th>{t('admin.active')}</Table.Th>
                <Table.Th>{t('admin.delayed')}</Table.Th>
                <Table.Th>{t('admin.failed')}</Table.Th>
                <Table.Th>{t('admin.workers')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {queues.data.data.map((queue) => (
                <Table.Tr key={queue.name}>
                  <Table.Td>{queue.name}</Table.Td>
                  <Table.Td>{queue.waiting}</Table.Td>
                  <Table.Td>{queue.active}</Table.Td>
                  <Table.Td>{queue.delayed}</Table.Td>
                  <Table.Td>{queue.failed}</Table.Td>
                  <Table.Td>{queue.workers}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Title order={3} size="h4">{t('admin.failedJobs')}</Title>
      {failed.data && failed.data.length === 0 && <Text c="dimmed">—</Text>}
      {failed.data && failed.data.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.queue')}</Table.Th>
                <Table.Th>{t('admin.job')}</Table.Th>
                <Table.Th>{t('usage.task')}</Table.Th>
                <Table.Th>{t('admin.error')}</Table.Th>
                <Table.Th>{t('usage.time')}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {failed.data.map((job) => (
                <Table.Tr key={`${job.queue}:${job.id}`}>
                  <Table.Td>{job.queue}</Table.Td>
                  <Table.Td>{job.id}</Table.Td>
                  <Table.Td>{job.task_id ?? '—'}</Table.Td>
                  <Table.Td><Text size="sm" lineClamp={2}>{job.reason}</Text></Table.Td>
                  <Table.Td>{job.failed_at ? new Date(job.failed_at).toLocaleString(i18n.language) : '—'}</Table.Td>
                  <Table.Td><Button size="compact-xs" variant="light" onClick={() => retry(job)}>{t('admin.retry')}</Button></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
