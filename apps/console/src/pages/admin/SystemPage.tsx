import { Button, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useFailureToast } from '../../api/use-error-text';
import { notify } from '../../components/notify';
import { get, post } from '../../api/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { keyOf } from '../../api/queries';
import { DataTable } from '../../components/DataTable';
import { formatTime } from '../../components/dates';
import { RequestStatus } from '../../components/RequestStatus';
import type { FailedJob, QueueState } from '../../api/types';

/** The queues as BullMQ counts them, the workers connected to each, and recent failed jobs to retry. */
export default function SystemPage() {
  const { t } = useTranslation();
  const showFailure = useFailureToast();
  // One look-up of the queues: their counts, then the failed jobs of each.
  const queryClient = useQueryClient();
  const system = useQuery({
    queryKey: keyOf('/admin/system/queues'),
    queryFn: async () => {
      const queues = (await get<{ data: QueueState[] }>('/admin/system/queues')).data;
      const lists = await Promise.all(
        queues.map((queue) => get<{ data: FailedJob[] }>(`/admin/system/queues/${queue.name}/failed?limit=20`)),
      );
      return {
        queues,
        failed: lists.flatMap((list) => list.data).sort((a, b) => (b.failed_at ?? '').localeCompare(a.failed_at ?? '')),
      };
    },
  });
  const retrying = useMutation({
    mutationFn: (job: FailedJob) => post(`/admin/system/queues/${job.queue}/jobs/${encodeURIComponent(job.id)}/retry`),
    onSuccess: () => {
      notify(t('admin.retried'), 'teal');
      void queryClient.invalidateQueries({ queryKey: keyOf('/admin/system') });
    },
    onError: showFailure,
  });
  return (
    <Stack>
      <Title order={2}>{t('admin.system')}</Title>
      <RequestStatus error={system.error} answered={system.data !== undefined} />
      {system.data && (
        <DataTable
          minWidth={560}
          head={[
            t('admin.queue'),
            t('admin.waiting'),
            t('admin.active'),
            t('admin.delayed'),
            t('admin.failed'),
            t('admin.workers'),
          ]}
          rows={system.data.queues.map((queue) => [
            queue.name,
            queue.waiting,
            queue.active,
            queue.delayed,
            queue.failed,
            queue.workers,
          ])}
        />
      )}
      <Title order={3} size="h4">
        {t('admin.failedJobs')}
      </Title>
      {system.data?.failed.length === 0 && <Text c="dimmed">—</Text>}
      {system.data && system.data.failed.length > 0 && (
        <DataTable
          minWidth={720}
          head={[t('admin.queue'), t('admin.job'), t('usage.task'), t('admin.error'), t('usage.time'), '']}
          rows={system.data.failed.map((job) => [
            job.queue,
            job.id,
            job.task_id ?? '—',
            <Text size="sm" lineClamp={2}>
              {job.reason}
            </Text>,
            formatTime(job.failed_at),
            // A client error would be refused again: no Retry is offered for it.
            job.retryable ? (
              <Button size="compact-xs" variant="light" onClick={() => retrying.mutate(job)}>
                {t('admin.retry')}
              </Button>
            ) : (
              <Text size="xs" c="dimmed">
                {t('admin.clientError', { status: job.status })}
              </Text>
            ),
          ])}
        />
      )}
    </Stack>
  );
}
