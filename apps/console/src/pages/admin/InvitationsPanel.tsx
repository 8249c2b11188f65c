import { Badge, Button, Code, CopyButton, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import type { InvitationListView, SignupPolicy } from '@gateway/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { post, remove } from '../../api/client';
import { apiQuery, keyOf } from '../../api/queries';
import { useFailureToast } from '../../api/use-error-text';
import { DataTable } from '../../components/DataTable';
import { notify } from '../../components/notify';
import { formatTime } from '../../components/dates';

/** How long a new invitation stays valid, in hours (the API takes 1 to 720). */
const EXPIRIES = [1, 24, 72, 168, 720];

/** The sign-up policy (CONSOLE_SIGNUP) and what it means; invitations created with a chosen expiry, listed, revoked. */
export function InvitationsPanel() {
  const { t } = useTranslation();
  const showFailure = useFailureToast();
  const queryClient = useQueryClient();
  const policy = useQuery(apiQuery<SignupPolicy>('/admin/signup-policy'));
  const invitations = useQuery(apiQuery<InvitationListView>('/admin/invitations'));
  const [link, setLink] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [hours, setHours] = useState('72');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keyOf('/admin/invitations') });
  const inviting = useMutation({
    mutationFn: () =>
      post<{ invitation: string }>('/admin/invitations', {
        ...(email ? { email } : {}),
        expires_in_hours: Number(hours),
      }),
    onSuccess: ({ invitation }) => {
      setLink(`${window.location.origin}/console/sign-up?invitation=${encodeURIComponent(invitation)}`);
      refresh();
    },
    onError: showFailure,
  });
  const revoking = useMutation({
    mutationFn: (id: string) => remove(`/admin/invitations/${id}`),
    onSuccess: () => {
      notify(t('admin.revoked'), 'teal');
      refresh();
    },
    onError: showFailure,
  });
  const expiryLabel = (h: number) => (h < 48 ? t('admin.hours', { count: h }) : t('admin.days', { count: h / 24 }));
  return (
    <Paper withBorder p="md">
      <Stack>
        {policy.data && (
          <Text size="sm" data-testid="signup-policy">
            {t('admin.signupPolicy')}: <Code>CONSOLE_SIGNUP={policy.data.signup}</Code> —{' '}
            {t(`admin.signupMeaning.${policy.data.signup}`)}
          </Text>
        )}
        <Group align="end">
          <TextInput
            label={t('admin.inviteEmail')}
            type="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            w={280}
          />
          <Select
            label={t('admin.expiresIn')}
            w={160}
            allowDeselect={false}
            data={EXPIRIES.map((h) => ({ value: String(h), label: expiryLabel(h) }))}
            value={hours}
            onChange={(value) => value && setHours(value)}
          />
          <Button onClick={() => inviting.mutate()} loading={inviting.isPending}>
            {t('admin.invite')}
          </Button>
        </Group>
        {link && (
          <Stack gap={4}>
            <Text size="sm">{t('admin.invitationLink')}</Text>
            <Group wrap="nowrap">
              <Code data-testid="invitation-link" style={{ overflowWrap: 'anywhere' }}>
                {link}
              </Code>
              <CopyButton value={link}>
                {({ copied, copy }) => (
                  <Button size="compact-sm" variant="light" onClick={copy}>
                    {copied ? t('secrets.copied') : t('secrets.copy')}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        )}
        <Title order={3} size="h5">
          {t('admin.invitations')}
        </Title>
        {invitations.data?.data.length === 0 && <Text c="dimmed">{t('admin.noInvitations')}</Text>}
        {invitations.data && invitations.data.data.length > 0 && (
          <DataTable
            minWidth={640}
            head={[t('admin.kind'), t('admin.email'), t('admin.expires'), '']}
            rows={invitations.data.data.map((invitation) => [
              invitation.role === 'admin' ? t('admin.operatorSetup') : t('admin.accountInvitation'),
              invitation.email ?? t('admin.anyEmail'),
              <Group gap={6} wrap="nowrap">
                <Text size="sm">{formatTime(invitation.expires_at)}</Text>
                {invitation.expired && (
                  <Badge variant="light" color="gray.8">
                    {t('admin.expired')}
                  </Badge>
                )}
              </Group>,
              <Button
                size="compact-xs"
                variant="light"
                color="red"
                aria-label={`${t('admin.revoke')} ${invitation.email ?? t('admin.anyEmail')} ${formatTime(invitation.expires_at)}`}
                onClick={() => revoking.mutate(invitation.id)}
              >
                {t('admin.revoke')}
              </Button>,
            ])}
          />
        )}
      </Stack>
    </Paper>
  );
}
