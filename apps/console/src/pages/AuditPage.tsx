import { Button, Code, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { usePagedQuery } from '../api/queries';
import { DataTable } from '../components/DataTable';
import { formatTime } from '../components/dates';
import { RequestStatus } from '../components/RequestStatus';
import type { AuditRecordView } from '../api/types';

/** Long values (an application's API keys, a whole whitelist) cut, so a row stays readable. */
const SHOWN_CHARS = 160;

function shown(value: unknown): string {
  const text = value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

/** The access changes and sign-ins of the log, newest first: an owner's applications, or everyone's for an operator. */
export default function AuditPage() {
  const { t } = useTranslation();
  const { records, hasNextPage, fetchNextPage, isFetchingNextPage, error, data } =
    usePagedQuery<AuditRecordView>('/audit');
  const answered = data !== undefined;
  return (
    <Stack>
      <Title order={2}>{t('audit.title')}</Title>
      <RequestStatus error={error} answered={answered} />
      {answered && records.length === 0 && <Text c="dimmed">{t('audit.none')}</Text>}
      {records.length > 0 && (
        <DataTable
          minWidth={760}
          striped
          head={[
            t('usage.time'),
            t('audit.action'),
            t('audit.actor'),
            t('audit.target'),
            t('audit.address'),
            t('audit.changes'),
          ]}
          rows={records.map((record) => [
            formatTime(record.created_at),
            <Code>{record.action}</Code>,
            record.actor.email ?? t('audit.cli'),
            <Text size="sm" ff="monospace">
              {record.app_id ?? record.user_id ?? '—'}
            </Text>,
            record.address,
            <Stack gap={2} miw={200}>
              {Object.entries(record.changes).map(([field, change]) => (
                <Text key={field} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                  {field}: {shown(change.before)} → {shown(change.after)}
                </Text>
              ))}
            </Stack>,
          ])}
        />
      )}
      {hasNextPage && (
        <Button variant="subtle" loading={isFetchingNextPage} onClick={() => void fetchNextPage()}>
          {t('usage.more')}
        </Button>
      )}
    </Stack>
  );
}
