import { Alert, Badge, Button, Code, CopyButton, Group, Loader, NumberInput, Paper, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '../../components/notify';
import { get, patch, post } from '../../api/client';
import { useRequest } from '../../api/use-request';

interface Account {
  id: string;
  email: string;
  role: 'admin' | 'user';
  disabled: boolean;
  applications: number;
  ceilings: { max_applications: number | null; max_daily_call_limit: number | null; max_token_quota: number | null };
}

const CEILINGS = [
  ['max_applications', 'admin.maxApplications'],
  ['max_daily_call_limit', 'admin.maxDailyCallLimit'],
  ['max_token_quota', 'admin.maxTokenQuota'],
] as const;

/** Every account: disable or enable it, set its ceilings; and invitations for `CONSOLE_SIGNUP=invite`. */
export default function UsersPage() {
  const { t } = useTranslation();
  const { data, error, reload } = useRequest(() => get<{ data: Account[] }>('/admin/users'), []);
  const [invitation, setInvitation] = useState<string | null>(null);
  const [inviteEmail, setInviteEmail] = useState('');
  const change = async (account: Account, changes: Record<string, unknown>) => {
    try {
      await patch(`/admin/users/${account.id}`, changes);
      reload();
    } catch (failure) {
      notify(t('errors.generic', { message: (failure as Error).message }), 'red');
    }
  };
  const invite = async () => {
    try {
      const { invitation: token } = await post<{ invitation: string }>('/admin/invitations', inviteEmail ? { email: inviteEmail } : {});
      setInvitation(`${window.location.origin}/console/sign-up?invitation=${encodeURIComponent(token)}`);
    } catch (failure) {
      notify(t('errors.generic', { message: (failure as Error).message }), 'red');
    }
  };
  return (
    <Stack>
      <Title order={2}>{t('admin.users')}</Title>
      <Paper withBorder p="md">
        <Group align="end">
          <TextInput label={t('admin.inviteEmail')} type="email" value={inviteEmail} onChange={(event) => setInviteEmail(event.currentTarget.value)} w={280} />
          <Button onClick={invite}>{t('admin.invite')}</Button>
        </Group>
        {invitation && (
          <Stack gap={4} mt="sm">
            <Text size="sm">{t('admin.invitationLink')}</Text>
            <Group wrap="nowrap">
              <Code data-testid="invitation-link" style={{ overflowWrap: 'anywhere' }}>{invitation}</Code>
              <CopyButton value={invitation}>{({ copied, copy }) => <Button size="compact-sm" variant="light" onClick={copy}>{copied ? t('secrets.copied') : t('secrets.copy')}</Button>}</CopyButton>
            </Group>
          </Stack>
        )}
      </Paper>
      {error && <Alert color="red" role="alert">{t('errors.generic', { message: error.message })}</Alert>}
      {!data && !error && <Loader aria-label={t('common.loading')} />}
      {data && (
        <Table.ScrollContainer minWidth={900}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.email')}</Table.Th>
                <Table.Th>{t('admin.role')}</Table.Th>
                <Table.Th>{t('nav.applications')}</Table.Th>
                {CEILINGS.map(([field, label]) => <Table.Th key={field}>{t(label)}</Table.Th>)}
                <Table.Th>{t('admin.disabled')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.data.map((account) => (
                <Table.Tr key={account.id}>
                  <Table.Td>{account.email}</Table.Td>
                  <Table.Td><Badge variant="filled" color={account.role === 'admin' ? 'indigo.8' : 'gray.7'}>{account.role}</Badge></Table.Td>
                  <Table.Td>{account.applications}</Table.Td>
                  {CEILINGS.map(([field, label]) => (
                    <Table.Td key={field}>
                      <NumberInput
                        aria-label={`${t(label)} ${account.email}`}
                        size="xs"
                        w={130}
                        min={0}
                        allowDecimal={false}
                        placeholder={t('apps.unlimited')}
                        defaultValue={account.ceilings[field] ?? ''}
                        onBlur={(event) => {
                          const value = event.currentTarget.value.replace(/[^\d]/g, '');
                          if (value !== String(account.ceilings[field] ?? '')) void change(account, { ceilings: { [field]: value === '' ? null : Number(value) } });
                        }}
                      />
                    </Table.Td>
                  ))}
                  <Table.Td>
                    <Switch
                      aria-label={`${t('admin.disabled')} ${account.email}`}
                      checked={account.disabled}
                      onChange={(event) => change(account, { disabled: event.currentTarget.checked })}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
