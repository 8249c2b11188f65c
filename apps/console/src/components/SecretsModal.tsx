import { Alert, Button, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Credentials } from '../api/types';

/** Credentials right after they were issued: shown this once, with copy buttons; never kept anywhere else. */
export function SecretsModal({ credentials, onClose }: { credentials: Credentials | null; onClose: () => void }) {
  const { t } = useTranslation();
  const rows = credentials
    ? [
        { label: t('secrets.appId'), value: credentials.app_id, testId: 'secret-app-id' },
        ...(credentials.api_key
          ? [{ label: t('secrets.apiKey'), value: credentials.api_key, testId: 'secret-api-key' }]
          : []),
        ...(credentials.secret_key
          ? [{ label: t('secrets.secretKey'), value: credentials.secret_key, testId: 'secret-secret-key' }]
          : []),
      ]
    : [];
  return (
    <Modal
      opened={credentials !== null}
      onClose={onClose}
      title={t('secrets.title')}
      size="lg"
      closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <Stack>
        <Alert color="yellow" role="alert">
          {t('secrets.warning')}
        </Alert>
        {rows.map((row) => (
          <Group key={row.label} align="end" wrap="nowrap">
            <TextInput
              label={row.label}
              value={row.value}
              readOnly
              style={{ flex: 1 }}
              data-testid={row.testId}
              styles={{ input: { fontFamily: 'monospace' } }}
            />
            <CopyButton value={row.value}>
              {({ copied, copy }) => (
                <Button
                  color={copied ? 'teal.9' : undefined}
                  onClick={copy}
                  aria-label={`${copied ? t('secrets.copied') : t('secrets.copy')} ${row.label}`}
                >
                  {copied ? t('secrets.copied') : t('secrets.copy')}
                </Button>
              )}
            </CopyButton>
          </Group>
        ))}
        {credentials?.previous_key_valid_for_seconds ? (
          <Text size="sm" c="dimmed">
            {t('secrets.rotateHelp')}
          </Text>
        ) : null}
        <Group justify="end">
          <Button onClick={onClose}>{t('secrets.done')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
