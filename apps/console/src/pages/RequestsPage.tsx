import { Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RequestsPanel } from '../components/RequestsPanel';

/** Every call of the account's applications: those refused before the queue and, by date, those that became tasks. */
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
