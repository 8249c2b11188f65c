import { Anchor, Button, FileInput, Group, Image, NumberInput, SimpleGrid, Stack, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ModelSelect } from './ModelSelect';
import type { PlaygroundModel } from './PlaygroundPanel';
import { RunError, SentRequestCode } from './RunResult';
import { fileMarker, SentRequest } from './snippets';
import { postV1 } from './v1-client';

interface ImageEditAnswer {
  data: { url: string; revised_prompt?: string }[];
  usage: { image_count: number; failed_count?: number };
}

interface Upload {
  file: File;
  dataUri: string;
}

const MAX_IMAGES = 3;

function readAsDataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** One to three images and an instruction, sent inline (base64) to POST /v1/images/edits; the results shown. */
export function ImageEditPlayground({ apiKey, models }: { apiKey: string; models: PlaygroundModel[] }) {
  const { t } = useTranslation();
  const [model, setModel] = useState(models[0].id);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [instruction, setInstruction] = useState('');
  const [count, setCount] = useState(1);
  const [sent, setSent] = useState<SentRequest>();
  const maxN = Number(models.find((entry) => entry.id === model)?.limits.max_n ?? 1);
  const n = Math.min(count, maxN);

  const choose = async (files: File[]) => {
    setUploads(await Promise.all(files.map(async (file) => ({ file, dataUri: await readAsDataUri(file) }))));
  };
  const run = useMutation({
    mutationFn: () => {
      const content = (images: string[]) => [...images.map((image) => ({ image })), { text: instruction.trim() }];
      const body = (images: string[]) => ({
        model,
        input: { messages: [{ role: 'user', content: content(images) }] },
        parameters: { n },
      });
      setSent({
        path: '/images/edits',
        body: body(uploads.map((_, index) => fileMarker(index))),
        files: uploads.map(({ file }) => ({ name: file.name, type: file.type || 'image/png' })),
      });
      return postV1<ImageEditAnswer>(apiKey, '/images/edits', body(uploads.map((upload) => upload.dataUri)));
    },
  });
  const tooMany = uploads.length > MAX_IMAGES;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <ModelSelect models={models} value={model} onChange={setModel} />
        {maxN > 1 && (
          <NumberInput
            label={t('playground.imageCount')}
            min={1}
            max={maxN}
            value={n}
            allowDecimal={false}
            allowNegative={false}
            onChange={(value) => setCount(Math.max(1, Number(value) || 1))}
          />
        )}
      </SimpleGrid>
      <FileInput
        label={t('playground.images')}
        description={t('playground.imagesHint', { max: MAX_IMAGES })}
        placeholder={t('playground.chooseImages')}
        accept="image/png,image/jpeg,image/webp,image/gif,image/bmp,image/tiff"
        multiple
        clearable
        clearButtonProps={{ 'aria-label': t('playground.clearImages') }}
        value={uploads.map((upload) => upload.file)}
        onChange={(files) => void choose(files)}
        error={tooMany ? t('playground.tooManyImages', { max: MAX_IMAGES }) : undefined}
      />
      {uploads.length > 0 && (
        <SimpleGrid cols={{ base: 3, sm: 6 }} spacing="xs">
          {uploads.map((upload, index) => (
            <Image key={index} src={upload.dataUri} alt={upload.file.name} radius="sm" fit="contain" h={96} />
          ))}
        </SimpleGrid>
      )}
      <Textarea
        label={t('playground.instruction')}
        autosize
        minRows={2}
        value={instruction}
        onChange={(event) => setInstruction(event.currentTarget.value)}
      />
      <Group>
        <Button
          onClick={() => run.mutate()}
          disabled={!apiKey || uploads.length === 0 || tooMany || !instruction.trim()}
          loading={run.isPending}
        >
          {t('playground.edit')}
        </Button>
        {!apiKey && (
          <Text size="sm" c="dimmed">
            {t('playground.keyFirst')}
          </Text>
        )}
      </Group>
      <RunError error={run.error} />
      {run.data && (
        <Stack gap="xs" data-testid="image-results">
          <Text size="sm">
            {t('playground.edited', { count: run.data.usage.image_count, failed: run.data.usage.failed_count ?? 0 })}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {run.data.data.map((image, index) => (
              <Stack key={image.url} gap={4}>
                <Image src={image.url} alt={t('playground.result', { index: index + 1 })} radius="sm" />
                {image.revised_prompt && (
                  <Text size="xs" c="dimmed">
                    {image.revised_prompt}
                  </Text>
                )}
                <Anchor href={image.url} target="_blank" rel="noreferrer" size="sm">
                  {t('playground.openImage', { index: index + 1 })}
                </Anchor>
              </Stack>
            ))}
          </SimpleGrid>
        </Stack>
      )}
      {sent && <SentRequestCode request={sent} apiKey={apiKey} />}
    </Stack>
  );
}
