import { Anchor, Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { AccountTaskView, RefusedCallPage, RefusedCallView, TaskView } from '@gateway/contracts';
import { apiQuery, usePagedQuery } from '../api/queries';
import { DataTable } from './DataTable';
import { RequestStatus } from './RequestStatus';
import { TaskBodiesButton } from './TaskBodiesButton';
import { formatTime } from './dates';
import { RequestFilterControls } from './requests/RequestFilterControls';
import { useRequestFilters } from './requests/request-filters';
import { useDayRange } from './usage/day-range';
import { DayRangePicker } from './usage/DayRangePicker';

/** Refusals are read again this often, so a refused call shows within a few seconds without a reload. */
const REFUSALS_REFRESH_MS = 2_000;

/**
 * An application's calls: those refused before the queue (kept in Redis, capped, with a count of the dropped ones)
 * and those that became tasks, newest first, over a day range and filtered on the server (RequestFilterControls);
 * both exported as CSV under the same range and filter. `appId` absent: the whole account's calls, its tasks over the
 * day range only (the API filters tasks per application).
 */
export function RequestsPanel({ appId }: { appId?: string }) {
  const { t } = useTranslation();
  const range = useDayRange(7);
  const filters = useRequestFilters();
  const base = appId ? `/applications/${appId}` : '';
  const refusals = useQuery({
    ...apiQuery<RefusedCallPage>(`${base}/refusals?limit=200&${range.query}&${filters.refusalQuery}`),
    refetchInterval: REFUSALS_REFRESH_MS,
    enabled: range.valid,
  });
  // The account's listing takes no filter: under one, its tasks give way to a pointer to the applications' tabs.
  const listsTasks = filters.showTasks && (appId !== undefined || filters.taskQuery === '');
  const tasks = usePagedQuery<TaskView | AccountTaskView>(`${base}/tasks?${range.query}&${filters.taskQuery}`, {
    enabled: range.valid && listsTasks,
  });
  return (
    <Stack>
      <DayRangePicker
        range={range}
        exportHref={`${base}/requests/export?${filters.exportQuery}`}
        exportLabel={t('requests.exportCsv')}
      />
      <RequestFilterControls filters={filters} appId={appId} />
      {range.valid && <RequestStatus error={refusals.error ?? tasks.error} answered={refusals.data !== undefined} />}
      {refusals.data && filters.showRefused && (
        <Stack gap="xs">
          <Title order={3} size="h4">
            {t('requests.refused')}
          </Title>
          <RefusedTable calls={refusals.data.data} showApp={appId === undefined} />
          {refusals.data.not_listed > 0 && (
            <Text c="dimmed" size="sm" data-testid="refusals-not-listed">
              {t('requests.notListed', { count: refusals.data.not_listed })}
            </Text>
          )}
        </Stack>
      )}
      {filters.showTasks && !listsTasks && <Text c="dimmed">{t('requests.accountTasksUnfiltered')}</Text>}
      {listsTasks && tasks.isSuccess && (
        <Stack gap="xs">
          <Title order={3} size="h4">
            {t('requests.tasks')}
          </Title>
          <TasksTable appId={appId} tasks={tasks.records} />
          {tasks.hasNextPage && (
            <Button variant="subtle" loading={tasks.isFetchingNextPage} onClick={() => void tasks.fetchNextPage()}>
              {t('usage.more')}
            </Button>
          )}
        </Stack>
      )}
    </Stack>
  );
}

function RefusedTable({ calls, showApp }: { calls: RefusedCallView[]; showApp: boolean }) {
  const { t } = useTranslation();
  if (calls.length === 0) return <Text c="dimmed">{t('requests.noneRefused')}</Text>;
  return (
    <DataTable
      minWidth={1000}
      head={[
        t('usage.time'),
        ...(showApp ? [t('requests.application')] : []),
        t('requests.status'),
        t('requests.code'),
        t('requests.route'),
        t('requests.model'),
        t('requests.key'),
        t('requests.mode'),
        t('requests.latency'),
      ]}
      rows={calls.map((call) => [
        formatTime(call.at),
        ...(showApp ? [call.app_id] : []),
        <Badge variant="filled" color="red.9">
          {call.status}
        </Badge>,
        <Text size="sm" title={call.message}>
          {call.code}
        </Text>,
        `${call.method} ${call.route}`,
        call.model ?? '—',
        call.key_id ?? '—',
        call.async ? t('requests.async') : t('requests.sync'),
        `${call.latency_ms} ms`,
      ])}
    />
  );
}

/** `appId` absent: the account's tasks, each naming its application. */
function TasksTable({ appId, tasks }: { appId?: string; tasks: (TaskView | AccountTaskView)[] }) {
  const { t } = useTranslation();
  const appOf = (task: TaskView | AccountTaskView) => appId ?? (task as AccountTaskView).app_id;
  if (tasks.length === 0) return <Text c="dimmed">{t('requests.noneTasks')}</Text>;
  return (
    <DataTable
      minWidth={1300}
      head={[
        t('usage.time'),
        ...(appId === undefined ? [t('requests.application')] : []),
        t('usage.task'),
        t('requests.route'),
        t('requests.model'),
        t('requests.status'),
        t('requests.key'),
        t('requests.mode'),
        t('requests.latency'),
        t('requests.tokensInOut'),
        t('requests.images'),
        t('requests.cost'),
        '',
      ]}
      rows={tasks.map((task) => {
        const usage = task.usage as { prompt_tokens?: number; completion_tokens?: number; images?: number } | null;
        return [
          formatTime(task.created_at),
          ...(appId === undefined ? [appOf(task)] : []),
          task.id,
          task.endpoint,
          task.model,
          task.error ? `${task.status} (${task.error.code})` : task.status,
          task.key_id ?? '—',
          task.async === null ? '—' : task.async ? t('requests.async') : t('requests.sync'),
          task.finished_at ? `${Date.parse(task.finished_at) - Date.parse(task.created_at)} ms` : '—',
          usage ? `${usage.prompt_tokens ?? 0} / ${usage.completion_tokens ?? 0}` : '—',
          usage?.images ?? '—',
          task.cost,
          <Group gap="xs" wrap="nowrap">
            <TaskBodiesButton appId={appOf(task)} taskId={task.id} />
            <Anchor component={Link} to={`/applications/${appOf(task)}/webhooks`} size="sm">
              {t('requests.webhooks')}
            </Anchor>
          </Group>,
        ];
      })}
    />
  );
}
