import { Alert, Button, Code, CopyButton, Group, Stack, Switch, Tabs, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { SentRequest, shownKey, snippet, SnippetLanguage } from './snippets';

/** A refusal in the envelope's own words (`code: message`), with its status; any other failure by its message. */
export function RunError({ error }: { error: Error | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  const refusal = error instanceof ApiError;
  return (
    <Alert
      color="red"
      role="alert"
      title={refusal ? t('playground.refused', { status: error.status }) : t('playground.failed')}
    >
      <Text size="sm" data-testid="playground-error">
        {refusal ? `${error.code}: ${error.message}` : error.message}
      </Text>
      {refusal && error.retryAfterSeconds !== undefined && (
        <Text size="sm">{t('playground.retryAfter', { seconds: error.retryAfterSeconds })}</Text>
      )}
    </Alert>
  );
}

const LANGUAGES: { value: SnippetLanguage; label: string }[] = [
  { value: 'curl', label: 'curl' },
  { value: 'python', label: 'Python' },
  { value: 'node', label: 'Node.js' },
];

/** The request a run sent, as curl and SDK code, its key masked unless revealed; a copy button copies what is shown. */
export function SentRequestCode({ request, apiKey }: { request: SentRequest; apiKey: string }) {
  const { t } = useTranslation();
  const [revealed, setRevealed] = useState(false);
  const base = `${window.location.origin}/v1`;
  const key = shownKey(apiKey, revealed);
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Text fw={600} size="sm">
          {t('playground.sentRequest')}
        </Text>
        <Switch
          size="sm"
          label={t('playground.revealKey')}
          checked={revealed}
          onChange={(event) => setRevealed(event.currentTarget.checked)}
        />
      </Group>
      {request.files.length > 0 && (
        <Text size="xs" c="dimmed">
          {t('playground.filesByName', { names: request.files.map((file) => file.name).join(', ') })}
        </Text>
      )}
      <Tabs defaultValue="curl">
        <Tabs.List>
          {LANGUAGES.map(({ value, label }) => (
            <Tabs.Tab key={value} value={value}>
              {label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {LANGUAGES.map(({ value, label }) => {
          const code = snippet(value, request, base, key);
          return (
            <Tabs.Panel key={value} value={value} pt="xs">
              <Group justify="end" mb={4}>
                <CopyButton value={code}>
                  {({ copied, copy }) => (
                    <Button
                      size="compact-xs"
                      variant="light"
                      onClick={copy}
                      aria-label={t('playground.copyCode', { language: label })}
                    >
                      {copied ? t('secrets.copied') : t('secrets.copy')}
                    </Button>
                  )}
                </CopyButton>
              </Group>
              {/* Focusable: code wider than a phone scrolls sideways by arrow keys too. */}
              <Code block tabIndex={0} data-testid={`playground-code-${value}`}>
                {code}
              </Code>
            </Tabs.Panel>
          );
        })}
      </Tabs>
    </Stack>
  );
}
