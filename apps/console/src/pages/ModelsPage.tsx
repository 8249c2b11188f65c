import {
  ActionIcon,
  Badge,
  CopyButton,
  Group,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  useComputedColorScheme,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiQuery } from '../api/queries';
import type { CatalogModelList, CatalogModelView } from '../api/types';
import { DataTable } from '../components/DataTable';
import { RequestStatus } from '../components/RequestStatus';

/** A row of the catalog: a model, or an alias standing for one (its own row, so it can be found and copied). */
interface CatalogRow {
  id: string;
  model: CatalogModelView;
  aliasOf?: string;
}

/** Every model, each followed by its aliases, filtered by a search on ids, capability and family. */
function rowsOf(models: CatalogModelView[], search: string): CatalogRow[] {
  const needle = search.trim().toLowerCase();
  return models
    .flatMap((model) => [{ id: model.id, model }, ...model.aliases.map((id) => ({ id, model, aliasOf: model.id }))])
    .filter(
      (row) =>
        needle === '' ||
        [row.id, row.model.id, row.model.capability, row.model.family ?? ''].some((text) =>
          text.toLowerCase().includes(needle),
        ),
    );
}

const LIMIT_KEYS = [
  'max_inputs',
  'max_input_tokens',
  'dimensions',
  'default_dimensions',
  'max_tokens',
  'max_images',
  'max_n',
  'size',
  'prompt_extend',
] as const;

/** The catalog of config/models.yaml for people: prices, where each model runs, what it accepts, its limits. */
export default function ModelsPage() {
  const { t, i18n } = useTranslation();
  // Badge text dark on a light tint, or light on dark with an outline: both pass WCAG AA.
  const dark = useComputedColorScheme('light') === 'dark';
  const shade = dark ? 3 : 9;
  const { data, error } = useQuery(apiQuery<CatalogModelList>('/models'));
  const [search, setSearch] = useState('');
  const rows = useMemo(() => rowsOf(data?.data ?? [], search), [data, search]);
  const number = new Intl.NumberFormat(i18n.language);
  const yes = (value: boolean) => (value ? t('models.yes') : t('models.no'));

  const limitText = (model: CatalogModelView) =>
    LIMIT_KEYS.filter((key) => model.limits[key] !== undefined)
      .map((key) => {
        const value = model.limits[key] as number | boolean | number[];
        const shown = Array.isArray(value)
          ? value.map((n) => number.format(n)).join(', ')
          : typeof value === 'boolean'
            ? yes(value)
            : number.format(value);
        return `${t(`models.limitNames.${key}`)}: ${shown}`;
      })
      .join(' · ');

  const idCell = (row: CatalogRow) => (
    <Group gap={6} wrap="nowrap">
      <Text size="sm" ff="monospace">
        {row.id}
      </Text>
      <CopyButton value={row.id}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? t('secrets.copied') : t('models.copyId')} withArrow>
            <ActionIcon
              variant="subtle"
              size="sm"
              onClick={copy}
              aria-label={`${t('models.copyId')} ${row.id}`}
              color={copied ? 'teal.8' : 'gray.7'}
            >
              <CopyGlyph copied={copied} />
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
      {row.aliasOf && <Badge variant="light">{t('models.aliasOf', { id: row.aliasOf })}</Badge>}
      {!row.aliasOf && row.model.family && row.model.family !== row.model.id && (
        <Badge variant="outline" color={`gray.${shade}`}>
          {t('models.snapshotOf', { family: row.model.family })}
        </Badge>
      )}
      {row.model.deprecated && (
        <Badge color="orange.9" variant="filled">
          {row.model.deprecated}
        </Badge>
      )}
    </Group>
  );

  const runsCell = (model: CatalogModelView) =>
    model.runs_on.length === 0 ? (
      <Text size="sm" c="dimmed">
        {t('models.unavailable')}
      </Text>
    ) : (
      <Group gap={4}>
        {model.runs_on.map((where) => (
          <Badge
            key={where}
            variant={dark ? 'outline' : 'light'}
            color={where === 'local' ? `teal.${shade}` : `indigo.${shade}`}
          >
            {where === 'local' ? (model.free ? t('models.localFree') : t('models.local')) : t('models.upstream')}
          </Badge>
        ))}
      </Group>
    );

  const acceptsCell = (model: CatalogModelView) => {
    const accepted = [
      ...(model.accepts.tools ? [t('models.tools')] : []),
      ...(model.accepts.structured_output ? [t('models.structuredOutput')] : []),
      ...(model.accepts.vision ? [t('models.vision')] : []),
      ...(model.accepts.dimensions
        ? [`${t('models.limitNames.dimensions')} ${model.accepts.dimensions.map((n) => number.format(n)).join(', ')}`]
        : []),
    ];
    return <Text size="sm">{accepted.join(' · ') || '—'}</Text>;
  };

  const priceCell = (model: CatalogModelView, currency: string) => (
    <Stack gap={0}>
      {model.prices.length === 0 ? (
        <Text size="sm">—</Text>
      ) : (
        model.prices.map((price) => (
          <Text size="sm" key={price.unit}>
            {price.amount} {currency} / {t(`models.units.${price.unit}`)}
          </Text>
        ))
      )}
    </Stack>
  );

  return (
    <Stack>
      <Title order={2}>{t('models.title')}</Title>
      <RequestStatus error={error} answered={data !== undefined} />
      {data && (
        <>
          <TextInput
            label={t('models.search')}
            type="search"
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value)}
            maw={360}
          />
          {rows.length === 0 ? (
            <Text c="dimmed">{t('models.noMatch')}</Text>
          ) : (
            <DataTable
              minWidth={1080}
              striped
              data-testid="catalog"
              head={[
                t('models.model'),
                t('models.capability'),
                t('models.runsOn'),
                t('models.accepts'),
                t('models.limits'),
                `${t('models.price')} (${data.currency})`,
              ]}
              rows={rows.map((row) => [
                idCell(row),
                row.model.capability,
                runsCell(row.model),
                acceptsCell(row.model),
                <Text size="sm">{limitText(row.model) || '—'}</Text>,
                priceCell(row.model, data.currency),
              ])}
            />
          )}
        </>
      )}
    </Stack>
  );
}

/**
 * The copy icon drawn as SVG: a font's "⧉" is missing on many systems (a box instead), and a tick once copied.
 */
function CopyGlyph({ copied }: { copied: boolean }) {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden>
      {copied ? (
        <path d="M3 8.5l3 3 7-7" />
      ) : (
        <>
          <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
          <path d="M10.5 3.5v-1a1 1 0 0 0-1-1h-7a1 1 0 0 0-1 1v7a1 1 0 0 0 1 1h1" />
        </>
      )}
    </svg>
  );
}
