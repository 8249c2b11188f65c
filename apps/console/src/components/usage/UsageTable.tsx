import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { UsageTotals } from '../../api/types';
import { DataTable } from '../DataTable';
import type { ChartChoice } from './UsageCharts';

/**
 * Usage per model (or application) and in all: calls, errors, input and output tokens apart, images, latency p50/p95
 * (bucket upper bounds) and the cost as the exact decimal the API sent. Columns follow the charts' choice.
 */
export function UsageTable({
  first,
  rows,
  total,
  currency,
  show,
  testId,
}: {
  first: string;
  rows: { label: ReactNode; totals: UsageTotals }[];
  total: UsageTotals;
  currency: string;
  show: ChartChoice;
  testId: string;
}) {
  const { t, i18n } = useTranslation();
  const number = new Intl.NumberFormat(i18n.language);
  const latency = (ms: number | null) => (ms === null ? '—' : `≤ ${number.format(ms)} ms`);
  const cells = (totals: UsageTotals) => [
    number.format(totals.calls),
    number.format(totals.errors),
    ...(show.tokens ? [number.format(totals.prompt_tokens), number.format(totals.completion_tokens)] : []),
    ...(show.images ? [number.format(totals.images)] : []),
    latency(totals.latency_p50_ms),
    latency(totals.latency_p95_ms),
    totals.cost,
  ];
  return (
    <DataTable
      minWidth={760}
      data-testid={testId}
      head={[
        first,
        t('usage.calls'),
        t('usage.errors'),
        ...(show.tokens ? [t('usage.inputTokens'), t('usage.outputTokens')] : []),
        ...(show.images ? [t('usage.images')] : []),
        t('usage.latencyP50'),
        t('usage.latencyP95'),
        `${t('usage.cost')} (${currency})`,
      ]}
      rows={[...rows.map((row) => [row.label, ...cells(row.totals)]), [t('usage.total'), ...cells(total)]]}
    />
  );
}
