import { Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RequestsPanel } from '../components/RequestsPanel';

/** The calls of every application of the account refused before the queue; each application's tab lists its tasks. */
export default function RequestsPage() {
  const { t } = useTranslation();
  return (
    <Stack>
      <Title order={2}>{t('requests.title')}</Title>
      <Text c="dimmed">{t('requests.accountHint')}</Text>
      <RequestsPanel />
    </Stack>
  );
}
