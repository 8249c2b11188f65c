import { Loader, Modal } from '@mantine/core';
import type { UserUsage } from '@gateway/contracts';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiQuery } from '../../api/queries';
import type { AccountView } from '../../api/types';
import { DataTable } from '../../components/DataTable';
import { RequestStatus } from '../../components/RequestStatus';

/** An account's usage over the last 30 days, per application and in total, as the API adds it up. */
export function UserUsageModal({ account, onClose }: { account: AccountView; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const { data, error } = useQuery(apiQuery<UserUsage>(`/admin/users/${account.id}/usage`));
  const number = new Intl.NumberFormat(i18n.language);
  const row = (name: string, usage: UserUsage['total']) => [
    name,
    number.format(usage.calls),
    number.format(usage.prompt_tokens),
    number.format(usage.completion_tokens),
    usage.cost,
  ];
  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={t('admin.usageOf', { email: account.email })}
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <RequestStatus error={error} answered={data !== undefined} />
      {!data && !error && <Loader aria-label={t('common.loading')} />}
      {data && (
        <DataTable
          minWidth={560}
          head={[t('apps.name'), t('admin.calls'), t('admin.tokensIn'), t('admin.tokensOut'), t('admin.cost')]}
          rows={[...data.by_application.map((app) => row(app.name, app)), row(t('admin.total'), data.total)]}
        />
      )}
    </Modal>
  );
}
