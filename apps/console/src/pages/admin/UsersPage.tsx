import { Badge, Button, Group, Modal, Select, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { patch } from '../../api/client';
import { apiQuery, keyOf } from '../../api/queries';
import type { AccountView, CatalogModelList } from '../../api/types';
import { useFailureToast } from '../../api/use-error-text';
import { DataTable } from '../../components/DataTable';
import { notify } from '../../components/notify';
import { RequestStatus } from '../../components/RequestStatus';
import { useSession } from '../../session';
import { BudgetCeilingInput } from './BudgetCeilingInput';
import { CeilingInput } from './CeilingInput';
import { InvitationsPanel } from './InvitationsPanel';
import { UserUsageModal } from './UserUsageModal';

type Account = AccountView & { applications: number };

const CEILINGS = [
  ['max_applications', 'admin.maxApplications'],
  ['max_daily_call_limit', 'admin.maxDailyCallLimit'],
  ['max_token_quota', 'admin.maxTokenQuota'],
] as const;

/**
 * Every account: its role, its ceilings and money budget (each saved alone, the others kept), disable or enable it
 * (after a confirmation), its usage; and the sign-up policy with the invitations.
 */
export default function UsersPage() {
  const { t } = useTranslation();
  const { user } = useSession();
  const showFailure = useFailureToast();
  const queryClient = useQueryClient();
  const { data, error } = useQuery(apiQuery<{ data: Account[] }>('/admin/users'));
  // Budgets are amounts of the catalog's currency (the Models page reads the same, cached, query).
  const currency = useQuery(apiQuery<CatalogModelList>('/models')).data?.currency;
  const [disabling, setDisabling] = useState<Account | null>(null);
  const [usageOf, setUsageOf] = useState<Account | null>(null);
  const changing = useMutation({
    mutationFn: ({ account, changes }: { account: Account; changes: Record<string, unknown> }) =>
      patch(`/admin/users/${account.id}`, changes),
    onSuccess: () => {
      notify(t('admin.saved'), 'teal');
      void queryClient.invalidateQueries({ queryKey: keyOf('/admin/users') });
    },
    onError: (failure) => {
      showFailure(failure);
      void queryClient.invalidateQueries({ queryKey: keyOf('/admin/users') });
    },
  });
  const change = (account: Account, changes: Record<string, unknown>) => changing.mutate({ account, changes });
  return (
    <Stack>
      <Title order={2}>{t('admin.users')}</Title>
      <InvitationsPanel />
      <RequestStatus error={error} answered={data !== undefined && data !== null} />
      {data && (
        <DataTable
          minWidth={1340}
          head={[
            t('admin.email'),
            t('admin.role'),
            t('nav.applications'),
            ...CEILINGS.map(([, label]) => t(label)),
            currency ? `${t('admin.budget')} (${currency})` : t('admin.budget'),
            t('admin.disabled'),
            t('admin.usage'),
          ]}
          rows={data.data.map((account) => {
            const self = account.id === user?.id;
            return [
              <Group gap={4} wrap="nowrap">
                <Text size="sm">{account.email}</Text>
                {self && (
                  <Badge variant="light" color="gray.8">
                    {t('admin.you')}
                  </Badge>
                )}
              </Group>,
              <Select
                key={`${account.id}:${account.role}`}
                aria-label={`${t('admin.role')} ${account.email}`}
                size="xs"
                w={130}
                allowDeselect={false}
                disabled={self}
                data={[
                  { value: 'user', label: t('admin.user') },
                  { value: 'admin', label: t('admin.operator') },
                ]}
                value={account.role}
                onChange={(role) => role && role !== account.role && change(account, { role })}
              />,
              account.applications,
              ...CEILINGS.map(([field, label]) => (
                <CeilingInput
                  // Keyed by account and value: a saved or refused change shows what the server holds.
                  key={`${account.id}:${field}:${account.ceilings[field] ?? ''}`}
                  label={`${t(label)} ${account.email}`}
                  value={account.ceilings[field]}
                  onSave={(value) => change(account, { ceilings: { [field]: value } })}
                />
              )),
              <BudgetCeilingInput
                key={`${account.id}:budget:${account.ceilings.budget?.amount ?? ''}:${account.ceilings.budget?.period ?? ''}`}
                email={account.email}
                value={account.ceilings.budget}
                onSave={(budget) => change(account, { ceilings: budget })}
              />,
              <Switch
                key={account.id}
                aria-label={`${t('admin.disabled')} ${account.email}`}
                checked={account.disabled}
                disabled={self}
                onChange={(event) =>
                  event.currentTarget.checked ? setDisabling(account) : change(account, { disabled: false })
                }
              />,
              <Button
                size="compact-xs"
                variant="light"
                aria-label={`${t('admin.usage')} ${account.email}`}
                onClick={() => setUsageOf(account)}
              >
                {t('admin.usage')}
              </Button>,
            ];
          })}
        />
      )}
      <Modal
        opened={disabling !== null}
        onClose={() => setDisabling(null)}
        title={t('admin.disableTitle', { email: disabling?.email ?? '' })}
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        <Stack>
          <Text size="sm">{t('admin.disableBody')}</Text>
          <Group justify="flex-end">
            <Button variant="default" data-autofocus onClick={() => setDisabling(null)}>
              {t('admin.cancel')}
            </Button>
            <Button
              color="red"
              onClick={() => {
                if (disabling) change(disabling, { disabled: true });
                setDisabling(null);
              }}
            >
              {t('admin.disable')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      {usageOf && <UserUsageModal account={usageOf} onClose={() => setUsageOf(null)} />}
    </Stack>
  );
}
