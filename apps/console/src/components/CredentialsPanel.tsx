import { Button, Group, NumberInput, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFailureToast } from '../api/use-error-text';
import { notify } from './notify';
import { useNavigate } from 'react-router';
import { post, remove } from '../api/client';
import type { Application, Credentials } from '../api/types';
import { ConfirmDialog } from './ConfirmDialog';
import { SecretsModal } from './SecretsModal';

/** Rotate the API key (with a grace period), reset the secret key, delete the application after typing its name. */
export function CredentialsPanel({ app, onChanged }: { app: Application; onChanged: () => void }) {
  const { t } = useTranslation();
  const showFailure = useFailureToast();
  const navigate = useNavigate();
  const [issued, setIssued] = useState<Credentials | null>(null);
  const [grace, setGrace] = useState<number>(3600);
  const [confirmation, setConfirmation] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  /** What waits for a yes: a rotation that cuts the current keys off at once, or a Secret Key reset. */
  const [asking, setAsking] = useState<'rotate' | 'reset' | null>(null);
  const act = async (name: string, action: () => Promise<void>) => {
    setBusy(name);
    try {
      await action();
    } catch (error) {
      showFailure(error);
    } finally {
      setBusy(null);
    }
  };
  const rotate = () =>
    act('rotate', async () => {
      setAsking(null);
      setIssued(await post<Credentials>(`/applications/${app.id}/rotate-key`, { grace_seconds: grace }));
      onChanged();
    });
  const resetSecret = () =>
    act('reset', async () => {
      setAsking(null);
      setIssued(await post<Credentials>(`/applications/${app.id}/reset-secret`));
    });
  const destroy = () =>
    act('delete', async () => {
      await remove(`/applications/${app.id}`);
      notify(t('secrets.deleted'), 'teal');
      navigate('/applications');
    });
  const active = app.status === 'active';
  return (
    <Stack>
      <Paper withBorder p="md">
        <Text size="sm">{t('keys.purposeApiKey')}</Text>
        <Text size="sm" mt="xs">
          {t('keys.purposeSigned')}
        </Text>
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} size="h5">
          {t('secrets.rotate')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('secrets.rotateHelp')}
        </Text>
        <Group align="end">
          <NumberInput
            label={t('secrets.grace')}
            value={grace}
            onChange={(value) => setGrace(Number(value) || 0)}
            min={0}
            max={7 * 86_400}
            allowDecimal={false}
            w={200}
          />
          <Button
            onClick={() => (grace === 0 ? setAsking('rotate') : void rotate())}
            loading={busy === 'rotate'}
            disabled={!active}
          >
            {t('secrets.rotate')}
          </Button>
        </Group>
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} size="h5">
          {t('secrets.resetSecret')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('secrets.resetSecretHelp')}
        </Text>
        <Button variant="light" onClick={() => setAsking('reset')} loading={busy === 'reset'} disabled={!active}>
          {t('secrets.resetSecret')}
        </Button>
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} size="h5" c="red">
          {t('secrets.delete')}
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t('secrets.deleteHelp')}
        </Text>
        <Group align="end">
          <TextInput
            label={t('secrets.deleteConfirm')}
            value={confirmation}
            onChange={(event) => setConfirmation(event.currentTarget.value)}
            w={260}
          />
          <Button
            color="red"
            onClick={() => void destroy()}
            loading={busy === 'delete'}
            disabled={!active || confirmation !== app.name}
          >
            {t('secrets.delete')}
          </Button>
        </Group>
      </Paper>
      <ConfirmDialog
        opened={asking === 'rotate'}
        title={t('secrets.rotateNowTitle')}
        message={t('secrets.rotateNowHelp')}
        confirmLabel={t('secrets.rotateNow')}
        onConfirm={() => void rotate()}
        onCancel={() => setAsking(null)}
      />
      <ConfirmDialog
        opened={asking === 'reset'}
        title={t('secrets.resetTitle')}
        message={t('secrets.resetConfirmHelp')}
        confirmLabel={t('secrets.resetSecret')}
        onConfirm={() => void resetSecret()}
        onCancel={() => setAsking(null)}
      />
      <SecretsModal credentials={issued} onClose={() => setIssued(null)} />
    </Stack>
  );
}
