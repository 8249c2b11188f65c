import type { TaskBodies } from '@gateway/contracts';
import { Anchor, Badge, Button, Code, CopyButton, Group, Loader, Modal, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../api/client';
import { apiQuery } from '../api/queries';
import type { Application } from '../api/types';
import { useErrorText } from '../api/use-error-text';
import { formatTime } from './dates';

/** A task's kept request and response, in a dialog opened from its row in Requests. */
export function TaskBodiesButton({ appId, taskId }: { appId: string; taskId: string }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button
        size="compact-xs"
        variant="light"
        onClick={() => setOpened(true)}
        aria-label={t('bodies.title', { taskId })}
      >
        {t('bodies.open')}
      </Button>
      <Modal
        opened={opened}
        onClose={() => setOpened(false)}
        title={t('bodies.title', { taskId })}
        size="xl"
        closeButtonProps={{ 'aria-label': t('common.close') }}
      >
        {opened && <TaskBodiesView appId={appId} taskId={taskId} />}
      </Modal>
    </>
  );
}

function TaskBodiesView({ appId, taskId }: { appId: string; taskId: string }) {
  const { t } = useTranslation();
  const explain = useErrorText();
  // The page has read the application already: whether it keeps bodies comes from that cache.
  const app = useQuery(apiQuery<Application>(`/applications/${appId}`));
  const bodies = useQuery(apiQuery<TaskBodies>(`/applications/${appId}/tasks/${taskId}/bodies`));
  if (bodies.isPending) return <Loader size="sm" aria-label={t('common.loading')} />;
  if (bodies.error) {
    if (!(bodies.error instanceof ApiError && bodies.error.status === 404))
      return <Text c="red">{explain(bodies.error)}</Text>;
    return (
      <Stack gap="xs" align="flex-start">
        <Text data-testid="bodies-absent">
          {app.data?.log_bodies ? t('bodies.noneForTask', { days: app.data.body_retention_days }) : t('bodies.notKept')}
        </Text>
        <Anchor component={Link} to={`/applications/${appId}/settings`} size="sm">
          {t('bodies.openSettings')}
        </Anchor>
      </Stack>
    );
  }
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('bodies.expires', { at: formatTime(bodies.data.expires_at) })}
      </Text>
      <BodySection title={t('bodies.request')} body={bodies.data.request} />
      <BodySection title={t('bodies.response')} body={bodies.data.response} />
    </Stack>
  );
}

function BodySection({ title, body }: { title: string; body: TaskBodies['request'] }) {
  const { t } = useTranslation();
  const text = prettyJson(body.body);
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={3} size="h5">
            {title}
          </Title>
          {body.truncated && (
            <Badge color="gray.8" variant="filled">
              {t('bodies.truncated', { kept: body.body.length.toLocaleString(), chars: body.chars.toLocaleString() })}
            </Badge>
          )}
        </Group>
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button
              size="compact-xs"
              variant="light"
              onClick={copy}
              aria-label={copied ? t('secrets.copied') : t('bodies.copy', { what: title })}
            >
              {copied ? t('secrets.copied') : t('secrets.copy')}
            </Button>
          )}
        </CopyButton>
      </Group>
      {/* Focusable: a long body scrolls by arrow keys too. */}
      <Code block tabIndex={0} mah={320} style={{ overflow: 'auto' }} role="region" aria-label={title}>
        {text}
      </Code>
    </Stack>
  );
}

/** Indented JSON; a body cut at the cap is not JSON and is shown as it was kept. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
