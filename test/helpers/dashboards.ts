import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { PromSeries } from './prometheus';

interface Panel {
  title?: string;
  type?: string;
  panels?: Panel[];
  targets?: { refId?: string; expr?: string; legendFormat?: string; hide?: boolean }[];
}

interface TemplateVariable {
  name: string;
  type: string;
  query?: string | { query?: string };
  includeAll?: boolean;
  allValue?: string;
  current?: { value?: string | string[] };
}

interface Dashboard {
  title: string;
  panels?: Panel[];
  templating?: { list?: TemplateVariable[] };
}

/** One PromQL target of one panel, with Grafana's variables already replaced. */
export interface PanelTarget {
  /** "<dashboard> › <panel> [refId]": how the test names it. */
  name: string;
  expr: string;
  /** The labels the legend shows ({{route}} …): each series must carry them, or the legend is blank. */
  legendLabels: string[];
}

/** A `label_values(metric, label)` template variable, which Grafana fills from Prometheus's label API. */
export interface LabelValuesVariable {
  name: string;
  metric: string;
  label: string;
}

/**
 * Grafana's built-in interval variables as a one-second scrape needs them: the rate window takes four scrapes or more
 * (as $__rate_interval does), wide enough to cover the whole test's load.
 */
const BUILT_INS: Record<string, string> = {
  __rate_interval: '1m',
  __interval: '15s',
  __interval_ms: '15000',
  __range: '1h',
  __range_s: '3600',
  __range_ms: '3600000',
};

/** Every dashboard JSON under `dir` (recursively), with its file name relative to `dir`. */
export function readDashboards(dir: string): { file: string; dashboard: Dashboard }[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
  return files
    .sort()
    .map((file) => ({
      file: relative(dir, join(dir, file)),
      dashboard: JSON.parse(readFileSync(join(dir, file), 'utf8')),
    }))
    .filter(({ dashboard }) => Array.isArray(dashboard.panels));
}

/** Every target of every panel, rows' collapsed panels included, in the order the dashboard shows them. */
export function panelTargets(dashboard: Dashboard): PanelTarget[] {
  const values = variableValues(dashboard);
  return allPanels(dashboard.panels ?? []).flatMap((panel) =>
    (panel.targets ?? [])
      .filter((target) => target.expr)
      .map((target) => ({
        name: `${dashboard.title} › ${panel.title ?? '(untitled)'} [${target.refId ?? 'A'}]`,
        expr: substitute(target.expr!, values),
        legendLabels: [...(target.legendFormat ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]),
      })),
  );
}

export function labelValuesVariables(dashboard: Dashboard): LabelValuesVariable[] {
  return (dashboard.templating?.list ?? []).flatMap((variable) => {
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    const match = variable.type === 'query' ? /^label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)$/.exec(query ?? '') : null;
    return match ? [{ name: `${dashboard.title} › $${variable.name}`, metric: match[1], label: match[2] }] : [];
  });
}

/**
 * Why the answer to a panel target would leave the panel empty or unlabelled, or undefined when it would not: no
 * series, only NaN or infinite values (a quantile or ratio of nothing), or a legend label the series lack.
 */
export function emptyPanelReason(target: PanelTarget, series: PromSeries[]): string | undefined {
  if (series.length === 0) return `no series for ${target.expr}`;
  if (!series.some((s) => Number.isFinite(Number(s.value[1]))))
    return `only NaN or infinite values for ${target.expr}: ${JSON.stringify(series.slice(0, 3))}`;
  const missing = target.legendLabels.filter((label) => series.some((s) => s.metric[label] === undefined));
  if (missing.length > 0) return `series without the legend's ${missing.join(', ')} for ${target.expr}`;
  return undefined;
}

function allPanels(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
}

/** Each template variable as Grafana sends it with "All" selected (its allValue), else its current value. */
function variableValues(dashboard: Dashboard): Record<string, string> {
  const values: Record<string, string> = { ...BUILT_INS };
  for (const variable of dashboard.templating?.list ?? []) {
    const current = variable.current?.value;
    const currentValue = Array.isArray(current) ? current.join('|') : current;
    values[variable.name] =
      variable.includeAll && (currentValue === undefined || currentValue.includes('$__all'))
        ? (variable.allValue ?? '.*')
        : (currentValue ?? '.*');
  }
  return values;
}

/** $name, ${name}, ${name:format} and [[name]]; a bare name runs to its last word character ($__range_s whole). */
function substitute(expr: string, values: Record<string, string>): string {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (whole, braced, bracketed, bare) => {
    const name = braced ?? bracketed ?? bare;
    if (values[name] === undefined) throw new Error(`unknown Grafana variable ${whole} in ${expr}`);
    return values[name];
  });
}
