import {
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFailureToast } from '../../api/use-error-text';
import { patch, post } from '../../api/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiQuery, keyOf } from '../../api/queries';
import { DataTable } from '../../components/DataTable';
import { RequestStatus } from '../../components/RequestStatus';
import type { AccountView } from '../../api/types';

type Account = AccountView;

const CEILINGS = [
  ['max_applications', 'admin.maxApplications'],
  ['max_daily_call_limit', 'admin.maxDailyCallLimit'],
  ['max_token_quota', 'admin.maxTokenQuota'],
] as const;

/** Every account: disable or enable it, set its ceilings; and invitations for `CONSOLE_SIGNUP=invite`. */
export default function UsersPage() {
  const { t } = useTranslation();
  const showFailure = useFailureToast();
  const queryClient = useQueryClient();
  const { data, error } = useQuery(apiQuery<{ data: Account[] }>('/admin/users'));

  const [invitation, setInvitation] = useState<string | null>(null);
  const [inviteEmail, setInviteEmail] = useState('');
  const changing = useMutation({
    mutationFn: ({ account, changes }: { account: Account; changes: Record<string, unknown> }) =>
      patch(`/admin/users/${account.id}`, changes),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keyOf('/admin/users') }),
    onError: showFailure,
  });
  const change = (account: Account, changes: Record<string, unknown>) => changing.mutate({ account, changes });
  const invite = async () => {
    try {
      const { invitation: token } = await post<{ invitation: string }>(
        '/admin/invitations',
        inviteEmail ? { email: inviteEmail } : {},
      );
      setInvitation(`${window.location.origin}/console/sign-up?invitation=${encodeURIComponent(token)}`);
    } catch (failure) {
      showFailure(failure);
    }
  };
  return (
    <Stack>
      <Title order={2}>{t('admin.users')}</Title>
      <Paper withBorder p="md">
        <Group align="end">
          <TextInput
            label={t('admin.inviteEmail')}
            type="email"
            value={inviteEmail}
            onChange={(event) => setInviteEmail(event.currentTarget.value)}
            w={280}
          />
          <Button onClick={() => void invite()}>{t('admin.invite')}</Button>
        </Group>
        {invitation && (
          <Stack gap={4} mt="sm">
            <Text size="sm">{t('admin.invitationLink')}</Text>
            <Group wrap="nowrap">
              <Code data-testid="invitation-link" style={{ overflowWrap: 'anywhere' }}>
                {invitation}
              </Code>
              <CopyButton value={invitation}>
                {({ copied, copy }) => (
                  <Button size="compact-sm" variant="light" onClick={copy}>
                    {copied ? t('secrets.copied') : t('secrets.copy')}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        )}
      </Paper>
      <RequestStatus error={error} answered={data !== undefined && data !== null} />
      {data && (
        <DataTable
          minWidth={900}
          head={[
            t('admin.email'),
            t('admin.role'),
            t('nav.applications'),
            ...CEILINGS.map(([, label]) => t(label)),
            t('admin.disabled'),
          ]}
          rows={data.data.map((account) => [
            account.email,
            <Badge variant="filled" color={account.role === 'admin' ? 'indigo.8' : 'gray.7'}>
              {account.role}
            </Badge>,
            account.applications,
            ...CEILINGS.map(([field, label]) => (
              <NumberInput
                // Keyed by account: an uncontrolled input must not keep another row's value when the list changes.
                key={`${account.id}:${field}`}
                aria-label={`${t(label)} ${account.email}`}
                size="xs"
                w={130}
                min={0}
                allowDecimal={false}
                placeholder={t('apps.unlimited')}
                defaultValue={account.ceilings[field] ?? ''}
                onBlur={(event) => {
                  const value = event.currentTarget.value.replace(/[^\d]/g, '');
                  if (value !== String(account.ceilings[field] ?? ''))
                    change(account, { ceilings: { [field]: value === '' ? null : Number(value) } });
                }}
              />
            )),
            <Switch
              key={account.id}
              aria-label={`${t('admin.disabled')} ${account.email}`}
              checked={account.disabled}
              onChange={(event) => change(account, { disabled: event.currentTarget.checked })}
            />,
          ])}
        />
      )}
    </Stack>
  );
}
