import { Button, Code, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { apiKeyNameProblem, API_KEY_NAME_MAX, MAX_API_KEYS_PER_APPLICATION } from '@gateway/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { post, remove } from '../api/client';
import { apiQuery, keyOf } from '../api/queries';
import type { ApiKeyList, ApiKeyView, Application, Credentials, IssuedApiKey } from '../api/types';
import { useFailureToast } from '../api/use-error-text';
import { ConfirmDialog } from './ConfirmDialog';
import { DataTable } from './DataTable';
import { notify } from './notify';
import { RequestStatus } from './RequestStatus';
import { SecretsModal } from './SecretsModal';
import { formatTime } from './dates';

const EXPIRY_DAYS = ['never', '7', '30', '90', '365'] as const;

/** The application's API keys by name: create one (shown once), see when each was last used, revoke one. */
export function ApiKeysPanel({ app }: { app: Application }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const showFailure = useFailureToast();
  const path = `/applications/${app.id}/keys`;
  const { data, error } = useQuery(apiQuery<ApiKeyList>(path));
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [expiry, setExpiry] = useState<string>('never');
  const [issued, setIssued] = useState<Credentials | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyView | null>(null);
  // The keys show in the application's page too: refresh everything read under it.
  const refresh = () => queryClient.invalidateQueries({ queryKey: keyOf(`/applications/${app.id}`) });
  const creating = useMutation({
    mutationFn: () =>
      post<IssuedApiKey>(path, {
        name,
        ...(expiry === 'never' ? {} : { expires_at: new Date(Date.now() + Number(expiry) * 86_400_000).toISOString() }),
      }),
    onSuccess: (key) => {
      setIssued({ app_id: app.id, api_key: key.api_key });
      setName('');
      setTouched(false);
      void refresh();
    },
    onError: showFailure,
  });
  const revoke = useMutation({
    mutationFn: (key: ApiKeyView) => remove(`${path}/${key.id}`),
    // Said once the list shows it.
    onSuccess: async () => {
      await refresh();
      notify(t('keys.revoked'), 'teal');
      setRevoking(null);
    },
    onError: showFailure,
  });
  const when = (iso: string | null, none: string) => (iso ? formatTime(iso) : none);
  const nameProblem = touched ? apiKeyNameProblem(name) : null;
  const active = app.status === 'active';
  return (
    <Stack>
      <Title order={3} size="h4">
        {t('detail.apiKeys')}
      </Title>
      {data ? (
        <DataTable
          minWidth={760}
          head={[
            t('keys.name'),
            t('detail.keyPrefix'),
            t('apps.status'),
            t('detail.created'),
            t('keys.lastUsed'),
            t('detail.expires'),
            t('keys.actions'),
          ]}
          rows={data.data.map((key) => [
            key.name,
            // The prefix ends with its own ellipsis.
            <Code data-testid="key-prefix">{key.prefix}</Code>,
            t(`keys.status.${key.status}`),
            formatTime(key.created_at),
            when(key.last_used_at, t('keys.neverUsed')),
            when(key.expires_at, t('detail.never')),
            key.status === 'active' ? (
              <Button
                size="compact-sm"
                variant="light"
                color="red"
                onClick={() => setRevoking(key)}
                aria-label={t('keys.revokeNamed', { name: key.name })}
              >
                {t('keys.revoke')}
              </Button>
            ) : null,
          ])}
        />
      ) : (
        <RequestStatus error={error} answered={false} />
      )}
      <Paper withBorder p="md">
        <Title order={4} size="h5">
          {t('keys.create')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('keys.createHelp', { max: MAX_API_KEYS_PER_APPLICATION })}
        </Text>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            setTouched(true);
            if (!apiKeyNameProblem(name)) creating.mutate();
          }}
        >
          <Group align="start">
            <TextInput
              label={t('keys.name')}
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              onBlur={() => setTouched(name !== '')}
              maxLength={API_KEY_NAME_MAX}
              error={nameProblem ? t('keys.nameRule', { max: API_KEY_NAME_MAX }) : undefined}
              w={240}
            />
            <Select
              label={t('detail.expires')}
              value={expiry}
              onChange={(value) => setExpiry(value ?? 'never')}
              allowDeselect={false}
              data={EXPIRY_DAYS.map((days) => ({
                value: days,
                label: days === 'never' ? t('detail.never') : t('keys.inDays', { days }),
              }))}
              w={180}
            />
            <Button type="submit" mt={25} loading={creating.isPending} disabled={!active}>
              {t('keys.create')}
            </Button>
          </Group>
        </form>
      </Paper>
      <ConfirmDialog
        opened={revoking !== null}
        title={t('keys.revokeTitle', { name: revoking?.name ?? '' })}
        message={t('keys.revokeHelp')}
        confirmLabel={t('keys.revoke')}
        loading={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      />
      <SecretsModal credentials={issued} onClose={() => setIssued(null)} />
    </Stack>
  );
}
