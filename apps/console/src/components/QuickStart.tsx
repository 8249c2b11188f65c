import { Button, Code, CopyButton, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { bearerSnippets, signedRequestSnippet, webhookSnippet } from './quick-start-snippets';

function Snippet({ code }: { code: string }) {
  const { t } = useTranslation();
  return (
    <>
      <Group justify="end" mb={4}>
        <CopyButton value={code}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="light" onClick={copy}>
              {copied ? t('secrets.copied') : t('secrets.copy')}
            </Button>
          )}
        </CopyButton>
      </Group>
      {/* Focusable: a snippet wider than a phone scrolls sideways by arrow keys too. */}
      <Code block tabIndex={0}>
        {code}
      </Code>
    </>
  );
}

/** Bearer calls per capability in three languages, then a signed request and a webhook receiver in Node.js. */
export function QuickStart({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const base = `${window.location.origin}/v1`;
  const all = bearerSnippets(base);
  return (
    <Stack>
      <Text size="sm">{t('quickStart.intro', { base })}</Text>
      {(['embeddings', 'chat', 'imageEdit'] as const).map((capability) => (
        <Stack key={capability} gap="xs">
          <Title order={3} size="h5">
            {t(`quickStart.${capability}`)}
          </Title>
          <Tabs defaultValue="curl">
            <Tabs.List>
              <Tabs.Tab value="curl">curl</Tabs.Tab>
              <Tabs.Tab value="python">Python</Tabs.Tab>
              <Tabs.Tab value="node">Node.js</Tabs.Tab>
            </Tabs.List>
            {(['curl', 'python', 'node'] as const).map((language) => (
              <Tabs.Panel key={language} value={language} pt="xs">
                <Snippet code={all[capability][language]} />
              </Tabs.Panel>
            ))}
          </Tabs>
        </Stack>
      ))}
      <Stack gap="xs">
        <Title order={3} size="h5">
          {t('quickStart.signed')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('quickStart.signedHelp')}
        </Text>
        <Snippet code={signedRequestSnippet(base, appId)} />
      </Stack>
      <Stack gap="xs">
        <Title order={3} size="h5">
          {t('quickStart.webhook')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('quickStart.webhookHelp')}
        </Text>
        <Snippet code={webhookSnippet()} />
      </Stack>
    </Stack>
  );
}
