import { Button, Stack, Text, Title } from '@mantine/core';
import type { OperatorApplicationPage } from '@gateway/contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { get } from '../../api/client';
import { keyOf } from '../../api/queries';
import { DataTable } from '../../components/DataTable';
import { RequestStatus } from '../../components/RequestStatus';
import { StatusBadge } from '../../components/StatusBadge';

const PAGE_SIZE = 50;

/** Every account's applications with their owner, newest first, a page at a time (each page read by index). */
export default function AllApplicationsPage() {
  const { t, i18n } = useTranslation();
  const pages = useInfiniteQuery({
    queryKey: [...keyOf('/admin/applications'), { limit: PAGE_SIZE }],
    queryFn: ({ pageParam }) =>
      get<OperatorApplicationPage>(
        `/admin/applications?limit=${PAGE_SIZE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next,
  });
  const apps = pages.data?.pages.flatMap((page) => page.data) ?? [];
  const number = new Intl.NumberFormat(i18n.language);
  const date = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium' });
  return (
    <Stack>
      <Title order={2}>{t('admin.allApplications')}</Title>
      <RequestStatus error={pages.error} answered={pages.data !== undefined} />
      {pages.data && apps.length === 0 && <Text c="dimmed">{t('apps.empty')}</Text>}
      {apps.length > 0 && (
        <DataTable
          minWidth={820}
          head={[
            t('apps.name'),
            t('admin.owner'),
            t('apps.type'),
            t('form.dailyCallLimit'),
            t('apps.status'),
            t('detail.created'),
          ]}
          rows={apps.map((app) => [
            <Stack gap={0}>
              <Text size="sm">{app.name}</Text>
              <Text size="xs" c="dimmed">
                {app.id}
              </Text>
            </Stack>,
            app.owner_email ?? '—',
            t(`form.types.${app.type}`),
            app.daily_call_limit > 0 ? number.format(app.daily_call_limit) : t('apps.unlimited'),
            <StatusBadge status={app.status} />,
            date.format(new Date(app.created_at)),
          ])}
        />
      )}
      {pages.hasNextPage && (
        <Button variant="light" onClick={() => void pages.fetchNextPage()} loading={pages.isFetchingNextPage}>
          {t('admin.loadMore')}
        </Button>
      )}
    </Stack>
  );
}
