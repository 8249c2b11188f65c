import { Button, Group, Paper, SimpleGrid, Stack, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { envelopeOf } from '../../api/client';
import { ModelSelect } from './ModelSelect';
import type { PlaygroundModel } from './PlaygroundPanel';
import { RunError, SentRequestCode } from './RunResult';
import type { SentRequest } from './snippets';
import { callV1, serverSentEvents } from './v1-client';

interface Turn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface Chunk {
  choices?: { delta?: { content?: string | null } }[];
  error?: unknown;
}

/** A conversation streamed from POST /v1/chat/completions (`stream: true`), token by token as the SSE events come. */
export function ChatPlayground({ apiKey, models }: { apiKey: string; models: PlaygroundModel[] }) {
  const { t } = useTranslation();
  const [model, setModel] = useState(models[0].id);
  const [system, setSystem] = useState('');
  const [draft, setDraft] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [reply, setReply] = useState('');
  const [sent, setSent] = useState<SentRequest>();
  const stop = useRef<AbortController>(null);
  // Leaving the tab closes the stream: the gateway then stops generating (and billing) the rest.
  useEffect(() => () => stop.current?.abort(), []);

  const run = useMutation({
    mutationFn: async (history: Turn[]) => {
      const messages = system.trim() ? [{ role: 'system', content: system.trim() }, ...history] : history;
      const body = { model, messages, stream: true };
      setSent({ path: '/chat/completions', body, files: [] });
      const stopped = new AbortController();
      stop.current = stopped;
      let text = '';
      try {
        const response = await callV1(apiKey, '/chat/completions', body, stopped.signal);
        for await (const event of serverSentEvents(response)) {
          const chunk = event as Chunk;
          // After the first chunk a failure arrives as an event holding the error envelope.
          if (chunk.error) {
            const { code, message } = envelopeOf(chunk);
            throw new Error(`${code}: ${message}`);
          }
          text += chunk.choices?.[0]?.delta?.content ?? '';
          setReply(text);
        }
      } catch (error) {
        // Stopped by the user: what came so far is the answer.
        if (!stopped.signal.aborted) throw error;
      }
      return text;
    },
    onMutate: (history) => {
      setTurns(history);
      setDraft('');
      setReply('');
    },
    onSuccess: (text, history) => {
      setTurns([...history, { role: 'assistant', content: text }]);
      setReply('');
    },
  });

  const send = () => {
    if (!draft.trim() || run.isPending) return;
    run.mutate([...turns, { role: 'user', content: draft.trim() }]);
  };
  const roleName = (role: Turn['role']) => t(`playground.role.${role}`);
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <ModelSelect models={models} value={model} onChange={setModel} />
        <Textarea
          label={t('playground.systemPrompt')}
          autosize
          minRows={1}
          value={system}
          onChange={(event) => setSystem(event.currentTarget.value)}
        />
      </SimpleGrid>
      <Stack gap="xs" role="log" aria-live="polite" aria-label={t('playground.conversation')}>
        {turns.map((turn, index) => (
          <Paper
            key={index}
            withBorder
            p="sm"
            bg={turn.role === 'user' ? 'var(--mantine-color-default-hover)' : undefined}
          >
            <Text size="xs" fw={700}>
              {roleName(turn.role)}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid={`chat-${turn.role}`}>
              {turn.content}
            </Text>
          </Paper>
        ))}
        {run.isPending && (
          <Paper withBorder p="sm">
            <Text size="xs" fw={700}>
              {roleName('assistant')}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {reply || t('playground.waiting')}
            </Text>
          </Paper>
        )}
      </Stack>
      <Textarea
        label={t('playground.message')}
        description={t('playground.sendHint')}
        autosize
        minRows={2}
        value={draft}
        onChange={(event) => setDraft(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) send();
        }}
      />
      <Group>
        <Button onClick={send} disabled={!apiKey || !draft.trim()} loading={run.isPending}>
          {t('playground.send')}
        </Button>
        {run.isPending && (
          <Button variant="default" onClick={() => stop.current?.abort()}>
            {t('playground.stop')}
          </Button>
        )}
        <Button
          variant="subtle"
          disabled={run.isPending || turns.length === 0}
          onClick={() => {
            setTurns([]);
            run.reset();
          }}
        >
          {t('playground.clear')}
        </Button>
      </Group>
      {!apiKey && (
        <Text size="sm" c="dimmed">
          {t('playground.keyFirst')}
        </Text>
      )}
      <RunError error={run.error} />
      {sent && <SentRequestCode request={sent} apiKey={apiKey} />}
    </Stack>
  );
}
