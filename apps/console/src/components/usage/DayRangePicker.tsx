import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { DayRange, RANGE_PRESETS } from './day-range';

/**
 * The presets, the two dates, and a reversed range said in words on the start date (then nothing is sent); with
 * `exportHref` (a console API path, which may carry its own query), a CSV download of the range under `exportLabel`.
 */
export function DayRangePicker({
  range,
  exportHref,
  exportLabel,
}: {
  range: DayRange;
  exportHref?: string;
  exportLabel?: string;
}) {
  const { t } = useTranslation();
  const reversedId = useId();
  // Marked invalid on both inputs (Mantine sets aria-invalid) and said in words under them, in a red dark enough
  // to read (Mantine's error red on white is below 4.5:1, so the inputs keep their text colour).
  const invalid = range.reversed
    ? { error: true, 'aria-describedby': reversedId, styles: { input: { color: 'var(--mantine-color-text)' } } }
    : {};
  return (
    <Stack gap={4}>
      <Group align="end" wrap="wrap" gap="sm">
        <Button.Group aria-label={t('usage.presets')}>
          {RANGE_PRESETS.map((days) => (
            <Button
              key={days}
              variant={range.preset === days ? 'filled' : 'default'}
              color="indigo.8"
              aria-pressed={range.preset === days}
              onClick={() => range.choose(days)}
            >
              {days === 1 ? t('usage.today') : t('usage.lastDays', { count: days })}
            </Button>
          ))}
        </Button.Group>
        <TextInput
          label={t('usage.from')}
          type="date"
          value={range.from}
          onChange={(event) => range.setFrom(event.currentTarget.value)}
          {...invalid}
        />
        <TextInput
          label={t('usage.to')}
          type="date"
          value={range.to}
          onChange={(event) => range.setTo(event.currentTarget.value)}
          {...invalid}
        />
        {exportHref &&
          (range.valid ? (
            <Button
              component="a"
              variant="default"
              href={`/console/api${exportHref}${exportHref.includes('?') ? '&' : '?'}${range.query}`}
              download
            >
              {exportLabel ?? t('usage.exportCsv')}
            </Button>
          ) : (
            <Button variant="default" disabled>
              {exportLabel ?? t('usage.exportCsv')}
            </Button>
          ))}
      </Group>
      {range.reversed && (
        <Text id={reversedId} role="alert" size="sm" c="red.9" fw={500}>
          {t('usage.reversed')}
        </Text>
      )}
    </Stack>
  );
}
