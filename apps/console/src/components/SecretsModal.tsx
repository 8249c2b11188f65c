import { Alert, Button, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Credentials } from '../api/types';

/**
 * Credentials right after they were issued: shown this once, with copy buttons; never kept anywhere else. The focus
 * starts on the first Copy button, and Escape or × ask before closing: only "I have saved them" closes at once.
 */
export function SecretsModal({ credentials, onClose }: { credentials: Credentials | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [confirming, setConfirming] = useState(false);
  const keepOpen = useRef<HTMLButtonElement>(null);
  useEffect(() => setConfirming(false), [credentials]);
  // The question takes the focus, on its safe answer.
  useEffect(() => {
    if (confirming) keepOpen.current?.focus();
  }, [confirming]);
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
      onClose={() => setConfirming(true)}
      title={t('secrets.title')}
      size="lg"
      closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': t('common.close') }}
    >
      <Stack>
        <Alert color="yellow" role="alert">
          {t('secrets.warning')}
        </Alert>
        {rows.map((row, index) => (
          <Group key={row.label} align="end" wrap="nowrap">
            <TextInput
              label={row.label}
              value={row.value}
              readOnly
              style={{ flex: 1 }}
              data-testid={row.testId}
              // An input clips what falls below the font's descent: DejaVu Sans Mono (the generic monospace of
              // many Linux desktops) at 14px draws the App ID's underscore there, so it vanished.
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
            />
            <CopyButton value={row.value}>
              {({ copied, copy }) => (
                <Button
                  color={copied ? 'teal.9' : undefined}
                  onClick={copy}
                  aria-label={`${copied ? t('secrets.copied') : t('secrets.copy')} ${row.label}`}
                  data-autofocus={index === 0 ? true : undefined}
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
        {confirming ? (
          <Alert color="red">
            <Text size="sm">{t('secrets.confirmClose')}</Text>
            <Group justify="end" mt="sm">
              <Button variant="default" onClick={() => setConfirming(false)} ref={keepOpen}>
                {t('secrets.keepOpen')}
              </Button>
              <Button color="red" onClick={onClose}>
                {t('secrets.closeAnyway')}
              </Button>
            </Group>
          </Alert>
        ) : (
          <Group justify="end">
            <Button onClick={onClose}>{t('secrets.done')}</Button>
          </Group>
        )}
      </Stack>
    </Modal>
  );
}
