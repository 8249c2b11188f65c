import { Alert, Badge, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { get } from '../api/client';
import { useRequest } from '../api/use-request';

interface CatalogModel {
  id: string;
  capability: string;
  family: string | null;
  aliases: string[];
  snapshots: string[];
  available: boolean;
  deprecated: string | null;
  limits: Record<string, number | boolean | number[]>;
  price: Record<string, number>;
}

function describe(values: Record<string, unknown>): string {
  return Object.entries(values).map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`).join(' · ');
}

/** The catalog of config/models.yaml: capability, aliases and snapshots, limits and prices. */
export default function ModelsPage() {
  const { t } = useTranslation();
  const { data, error } = useRequest(() => get<{ currency: string; data: CatalogModel[] }>('/models'), []);
  return (
    <Stack>
      <Title order={2}>{t('models.title')}</Title>
      {error && <Alert color="red" role="alert">{t('errors.generic', { message: error.message })}</Alert>}
      {!data && !error && <Loader aria-label={t('common.loading')} />}
      {data && (
        <Table.ScrollContainer minWidth={760}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('models.model')}</Table.Th>
                <Table.Th>{t('models.capability')}</Table.Th>
                <Table.Th>{t('models.aliases')}</Table.Th>
                <Table.Th>{t('models.limits')}</Table.Th>
                <Table.Th>{t('models.price')} ({data.currency})</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.data.map((model) => (
                <Table.Tr key={model.id}>
                  <Table.Td>
                    <Group gap={6}>
                      <Text size="sm" ff="monospace">{model.id}</Text>
                      {model.deprecated && <Badge color="orange.9" variant="filled">{model.deprecated}</Badge>}
                    </Group>
                  </Table.Td>
                  <Table.Td>{model.capability}</Table.Td>
                  <Table.Td><Text size="sm" ff="monospace">{[...model.aliases, ...model.snapshots].join(', ') || '—'}</Text></Table.Td>
                  <Table.Td><Text size="sm">{describe(model.limits) || '—'}</Text></Table.Td>
                  <Table.Td><Text size="sm">{describe(model.price) || '—'}</Text></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
