import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../DataTable';
import { cosineMatrix } from './cosine';
import { ModelSelect } from './ModelSelect';
import type { PlaygroundModel } from './PlaygroundPanel';
import { RunError, SentRequestCode } from './RunResult';
import type { SentRequest } from './snippets';
import { postV1 } from './v1-client';

interface EmbeddingsAnswer {
  data: { index: number; embedding: number[] }[];
  usage: { prompt_tokens: number };
}

const MAX_INPUTS = 8;

/** Embeds one input per line and shows how alike they are: the cosine similarity of every pair, as a matrix. */
export function EmbeddingsPlayground({ apiKey, models }: { apiKey: string; models: PlaygroundModel[] }) {
  const { t } = useTranslation();
  const [model, setModel] = useState(models[0].id);
  const [text, setText] = useState('');
  const [sent, setSent] = useState<SentRequest>();
  const inputs = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const run = useMutation({
    mutationFn: async (input: string[]) => {
      const body = { model, input };
      setSent({ path: '/embeddings', body, files: [] });
      const answer = await postV1<EmbeddingsAnswer>(apiKey, '/embeddings', body);
      const vectors = [...answer.data].sort((a, b) => a.index - b.index).map((item) => item.embedding);
      return { input, vectors, similarity: cosineMatrix(vectors), tokens: answer.usage.prompt_tokens };
    },
  });
  const result = run.data;
  const label = (index: number) => `#${index + 1}`;
  return (
    <Stack>
      <ModelSelect models={models} value={model} onChange={setModel} />
      <Textarea
        label={t('playground.inputs')}
        description={t('playground.inputsHint', { max: MAX_INPUTS })}
        autosize
        minRows={3}
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
        error={inputs.length > MAX_INPUTS ? t('playground.tooManyInputs', { max: MAX_INPUTS }) : undefined}
      />
      <Group>
        <Button
          onClick={() => run.mutate(inputs)}
          disabled={!apiKey || inputs.length === 0 || inputs.length > MAX_INPUTS}
          loading={run.isPending}
        >
          {t('playground.embed')}
        </Button>
        {!apiKey && (
          <Text size="sm" c="dimmed">
            {t('playground.keyFirst')}
          </Text>
        )}
      </Group>
      <RunError error={run.error} />
      {result && (
        <Stack gap="xs">
          <Text size="sm">
            {t('playground.embedded', {
              count: result.vectors.length,
              dimensions: result.vectors[0]?.length ?? 0,
              tokens: result.tokens,
            })}
          </Text>
          <Text fw={600} size="sm" id="cosine-caption">
            {t('playground.cosine')}
          </Text>
          <DataTable
            aria-labelledby="cosine-caption"
            data-testid="cosine-matrix"
            minWidth={120 + 80 * result.vectors.length}
            withTableBorder
            head={['', ...result.input.map((_, index) => label(index))]}
            rows={result.similarity.map((row, i) => [
              <Text size="sm" title={result.input[i]} lineClamp={1} maw={220}>
                {label(i)} {result.input[i]}
              </Text>,
              ...row.map((value) => value.toFixed(3)),
            ])}
          />
        </Stack>
      )}
      {sent && <SentRequestCode request={sent} apiKey={apiKey} />}
    </Stack>
  );
}
