import { Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { post } from '../api/client';
import { keyOf } from '../api/queries';
import type { Application, ApplicationInput, Credentials } from '../api/types';
import { ApplicationForm, EMPTY_APPLICATION } from '../components/ApplicationForm';
import { SecretsModal } from '../components/SecretsModal';

export default function NewApplicationPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [created, setCreated] = useState<(Application & { credentials: Credentials }) | null>(null);
  const queryClient = useQueryClient();
  const creating = useMutation({
    mutationFn: (input: ApplicationInput) =>
      post<Application & { credentials: Credentials }>('/applications', {
        ...input,
        callback_url: input.callback_url || undefined,
      }),
    onSuccess: (application) => {
      setCreated(application);
      void queryClient.invalidateQueries({ queryKey: keyOf('/applications') });
    },
  });
  const create = async (input: ApplicationInput) => void (await creating.mutateAsync(input));
  return (
    <Stack>
      <Title order={2}>{t('form.createTitle')}</Title>
      <ApplicationForm initial={EMPTY_APPLICATION} submitLabel={t('form.create')} onSubmit={create} />
      <SecretsModal
        credentials={created?.credentials ?? null}
        onClose={() => {
          // The modal opens only once the application exists.
          if (created) navigate(`/applications/${created.id}`);
        }}
      />
    </Stack>
  );
}
