import { Group, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { apiQuery } from '../../api/queries';
import type { ApiKeyList, CatalogModelList } from '../../api/types';
import { COMMON_CODES, RequestFilters } from './request-filters';

/**
 * The Requests filters: outcome, error code, model, API key (on an application's tab) and sync or async. One at a
 * time, as the API lists them: choosing one clears the others, and the hint says so.
 */
export function RequestFilterControls({ filters, appId }: { filters: RequestFilters; appId?: string }) {
  const { t } = useTranslation();
  const models = useQuery(apiQuery<CatalogModelList>('/models'));
  const keys = useQuery({
    ...apiQuery<ApiKeyList>(`/applications/${appId}/keys`),
    enabled: appId !== undefined,
  });
  const modelIds = [...new Set(models.data?.data.flatMap((model) => [model.id, ...model.aliases]) ?? [])];
  return (
    <Stack gap={4}>
      <Group align="end" wrap="wrap" gap="sm">
        {appId !== undefined && (
          <Select
            label={t('requests.outcome')}
            value={filters.outcome}
            onChange={(value) => filters.setOutcome(value ?? 'all')}
            data={(['all', 'refused', 'succeeded', 'failed'] as const).map((value) => ({
              value,
              label: t(`requests.outcomes.${value}`),
            }))}
            allowDeselect={false}
            w={160}
          />
        )}
        <Select
          label={t('requests.code')}
          placeholder={t('requests.anyCode')}
          value={filters.code}
          onChange={filters.setCode}
          data={[...COMMON_CODES]}
          searchable
          clearable
          w={200}
        />
        <Select
          label={t('requests.model')}
          placeholder={t('requests.anyModel')}
          value={filters.model}
          onChange={filters.setModel}
          data={modelIds}
          searchable
          clearable
          w={220}
        />
        {appId !== undefined && (
          <Select
            label={t('requests.key')}
            placeholder={t('requests.anyKey')}
            value={filters.keyId}
            onChange={filters.setKeyId}
            data={[
              ...(keys.data?.data.map((key) => ({ value: key.id, label: `${key.name} (${key.prefix})` })) ?? []),
              { value: 'signature', label: t('requests.signedRequests') },
            ]}
            clearable
            w={220}
          />
        )}
        <Stack gap={4}>
          <Text size="sm" fw={500} id="requests-mode-label">
            {t('requests.mode')}
          </Text>
          <SegmentedControl
            aria-labelledby="requests-mode-label"
            value={filters.mode}
            onChange={(value) => filters.setMode(value)}
            data={(['all', 'sync', 'async'] as const).map((value) => ({
              value,
              label: value === 'all' ? t('requests.anyMode') : t(`requests.${value}`),
            }))}
          />
        </Stack>
      </Group>
      <Text c="dimmed" size="sm">
        {t('requests.oneFilter')}
      </Text>
    </Stack>
  );
}
