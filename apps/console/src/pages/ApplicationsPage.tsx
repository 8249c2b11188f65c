import { Alert, Anchor, Badge, Button, Group, Loader, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { get } from '../api/client';
import type { Application } from '../api/types';
import { useRequest } from '../api/use-request';

export function ApplicationsPage() {
  const { t, i18n } = useTranslation();
  const { data, error } = useRequest(() => get<{ data: Application[] }>('/applications'), []);
  const number = new Intl.NumberFormat(i18n.language);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t('apps.title')}</Title>
        <Button component={Link} to="/applications/new">{t('apps.create')}</Button>
      </Group>
      {error && <Alert color="red" role="alert">{t('errors.generic', { message: error.message })}</Alert>}
      {!data && !error && <Loader aria-label={t('common.loading')} />}
      {data && data.data.length === 0 && <Text c="dimmed">{t('apps.empty')}</Text>}
      {data && data.data.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('apps.name')}</Table.Th>
                <Table.Th>{t('apps.type')}</Table.Th>
                <Table.Th>{t('apps.today')}</Table.Th>
                <Table.Th>{t('apps.status')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.data.map((app) => {
                const calls = app.calls_today ?? 0;
                const limit = app.daily_call_limit;
                return (
                  <Table.Tr key={app.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/applications/${app.id}`}>{app.name}</Anchor>
                    </Table.Td>
                    <Table.Td>{t(`form.types.${app.type}`)}</Table.Td>
                    <Table.Td miw={160}>
                      <Text size="sm">{number.format(calls)} / {limit > 0 ? number.format(limit) : t('apps.unlimited')}</Text>
                      {limit > 0 && <Progress value={Math.min(100, (calls / limit) * 100)} size="sm" aria-label={t('apps.today')} />}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={app.status === 'active' ? 'teal.9' : 'gray.7'} variant="filled">
                        {app.status === 'active' ? t('apps.statusActive') : t('apps.statusRevoked')}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
