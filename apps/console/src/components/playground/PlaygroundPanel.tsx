import { Alert, Button, Group, PasswordInput, Stack, Tabs, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { get, post } from '../../api/client';
import { keyOf } from '../../api/queries';
import type { Application } from '../../api/types';
import { RequestStatus } from '../RequestStatus';
import { RunError } from './RunResult';
import { ChatPlayground } from './ChatPlayground';
import { EmbeddingsPlayground } from './EmbeddingsPlayground';
import { ImageEditPlayground } from './ImageEditPlayground';

type Capability = 'chat' | 'embeddings' | 'image-edit';

interface CatalogModel {
  id: string;
  capability: string;
  aliases: string[];
  available: boolean;
  limits: Record<string, unknown>;
}

/** A model the application may call: its id or one of its aliases, with the catalog's limits. */
export interface PlaygroundModel {
  id: string;
  limits: Record<string, unknown>;
}

/**
 * Keys pasted on this page, by application: in this tab's memory only (never in the browser's storage), so moving
 * between the application's tabs keeps them and a reload forgets them.
 */
const pastedKeys = new Map<string, string>();

const TEMPORARY_KEY_HOURS = 1;

/** A name the key list can tell apart: `playground-2026-11-26-22-45` (UTC). */
function temporaryKeyName(now: Date): string {
  return `playground-${now.toISOString().slice(0, 16).replace(/[:T]/g, '-')}`;
}

/** The models of a capability the application's scope allows (empty lists allow all), aliases first. */
function modelsInScope(models: CatalogModel[], app: Application, capability: Capability): PlaygroundModel[] {
  const { capabilities, models: allowed } = app.scope;
  if (capabilities.length > 0 && !capabilities.includes(capability)) return [];
  return models
    .filter((model) => model.capability === capability && model.available)
    .flatMap((model) =>
      [...model.aliases, model.id].map((id) => ({ id, limits: model.limits, names: [model.id, ...model.aliases] })),
    )
    .filter((model) => allowed.length === 0 || model.names.some((name) => allowed.includes(name)))
    .map(({ id, limits }) => ({ id, limits }));
}

/** Chat, embeddings and image edit against /v1 with the application's own key, so each run is limited and billed. */
export default function PlaygroundPanel({ app }: { app: Application }) {
  const { t, i18n } = useTranslation();
  const [apiKey, setApiKey] = useState(pastedKeys.get(app.id) ?? '');
  const catalog = useQuery({
    queryKey: ['catalog'],
    queryFn: () => get<{ data: CatalogModel[] }>('/models'),
  });
  const remember = (key: string) => {
    setApiKey(key);
    if (key) pastedKeys.set(app.id, key);
    else pastedKeys.delete(app.id);
  };
  const queryClient = useQueryClient();
  // A named key of the application that expires by itself: the console is given the key once, in this answer.
  const temporaryKey = useMutation({
    mutationFn: () => {
      const now = new Date();
      return post<{ api_key: string; name: string; expires_at: string }>(`/applications/${app.id}/keys`, {
        name: temporaryKeyName(now),
        expires_at: new Date(now.getTime() + TEMPORARY_KEY_HOURS * 3_600_000).toISOString(),
      });
    },
    onSuccess: (created) => {
      remember(created.api_key);
      void queryClient.invalidateQueries({ queryKey: keyOf(`/applications/${app.id}`) });
    },
  });
  const expiry = new Intl.DateTimeFormat(i18n.language, { timeStyle: 'short' });
  const capabilities: { value: Capability; label: string }[] = [
    { value: 'chat', label: t('playground.chat') },
    { value: 'embeddings', label: t('playground.embeddings') },
    { value: 'image-edit', label: t('playground.imageEdit') },
  ];
  return (
    <Stack>
      <Text size="sm">{t('playground.intro')}</Text>
      <PasswordInput
        label={t('playground.apiKey')}
        description={t('playground.apiKeyHint')}
        placeholder="sk-…"
        autoComplete="off"
        value={apiKey}
        onChange={(event) => remember(event.currentTarget.value.trim())}
      />
      <Group gap="sm">
        <Button variant="light" size="xs" onClick={() => temporaryKey.mutate()} loading={temporaryKey.isPending}>
          {t('playground.temporaryKey', { hours: TEMPORARY_KEY_HOURS })}
        </Button>
        <Text size="xs" c="dimmed">
          {temporaryKey.data
            ? t('playground.temporaryKeyMade', {
                name: temporaryKey.data.name,
                time: expiry.format(new Date(temporaryKey.data.expires_at)),
              })
            : t('playground.temporaryKeyHint')}
        </Text>
      </Group>
      <RunError error={temporaryKey.error} />
      <RequestStatus error={catalog.error} answered={catalog.data !== undefined} />
      {catalog.data && (
        <Tabs defaultValue="chat" keepMounted={false}>
          <Tabs.List>
            {capabilities.map(({ value, label }) => (
              <Tabs.Tab key={value} value={value}>
                {label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {capabilities.map(({ value }) => {
            const models = modelsInScope(catalog.data.data, app, value);
            return (
              <Tabs.Panel key={value} value={value} pt="md">
                {models.length === 0 ? (
                  <Alert color="gray">{t('playground.outOfScope')}</Alert>
                ) : value === 'chat' ? (
                  <ChatPlayground apiKey={apiKey} models={models} />
                ) : value === 'embeddings' ? (
                  <EmbeddingsPlayground apiKey={apiKey} models={models} />
                ) : (
                  <ImageEditPlayground apiKey={apiKey} models={models} />
                )}
              </Tabs.Panel>
            );
          })}
        </Tabs>
      )}
    </Stack>
  );
}
