import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { apiQuery } from '../api/queries';
import { DataTable } from '../components/DataTable';
import { RequestStatus } from '../components/RequestStatus';

interface CatalogModel {
  id: string;
  capability: string;
  family: string | null;
  aliases: string[];
  snapshots: string[];
  available: boolean;
  deprecated: string | null;
  limits: Record<string, number | boolean | number[]>;
  /** Exact decimals of the catalog currency. */
  price: Record<string, string>;
}

function describe(values: Record<string, unknown>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join(' · ');
}

/** The catalog of config/models.yaml: capability, aliases and snapshots, limits and prices. */
export default function ModelsPage() {
  const { t } = useTranslation();
  const { data, error } = useQuery(apiQuery<{ currency: string; data: CatalogModel[] }>('/models'));
  return (
    <Stack>
      <Title order={2}>{t('models.title')}</Title>
      <RequestStatus error={error} answered={data !== undefined && data !== null} />
      {data && (
        <DataTable
          minWidth={760}
          striped
          head={[
            t('models.model'),
            t('models.capability'),
            t('models.aliases'),
            t('models.limits'),
            `${t('models.price')} (${data.currency})`,
          ]}
          rows={data.data.map((model) => [
            <Group gap={6}>
              <Text size="sm" ff="monospace">
                {model.id}
              </Text>
              {model.deprecated && (
                <Badge color="orange.9" variant="filled">
                  {model.deprecated}
                </Badge>
              )}
            </Group>,
            model.capability,
            <Text size="sm" ff="monospace">
              {[...model.aliases, ...model.snapshots].join(', ') || '—'}
            </Text>,
            <Text size="sm">{describe(model.limits) || '—'}</Text>,
            <Text size="sm">{describe(model.price) || '—'}</Text>,
          ])}
        />
      )}
    </Stack>
  );
}
