import { NumberInput, NumberInputProps } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export type LimitProblem = { rule: 'notWholeNumber' } | { rule: 'belowMin'; min: number };

/** What is wrong with a typed limit: a fraction, or under `min`. Empty is no problem (the caller says what it means). */
export function limitProblem(value: number | string | null | undefined, min = 0): LimitProblem | null {
  if (value === '' || value === null || value === undefined) return null;
  const number = typeof value === 'number' ? value : Number(String(value).replace(/,/g, ''));
  if (!Number.isInteger(number)) return { rule: 'notWholeNumber' };
  return number < min ? { rule: 'belowMin', min } : null;
}

/**
 * A limit field that never changes what the user typed: a minus sign or a fraction stays on screen with an error
 * under the field (Mantine's own NumberInput drops the minus, so `-1` would save `1`, and clamps to `min` on blur).
 * `min` is the smallest value allowed; `unlimitedWhenEmpty` says, in the placeholder, that an empty field means
 * unlimited. An `error` given by the form wins over the field's own.
 */
export function LimitInput({
  min = 0,
  unlimitedWhenEmpty = false,
  error,
  label,
  onChange,
  ...props
}: Omit<NumberInputProps, 'min' | 'allowNegative' | 'allowDecimal' | 'clampBehavior'> & {
  min?: number;
  unlimitedWhenEmpty?: boolean;
}) {
  const { t } = useTranslation();
  const [typed, setTyped] = useState<number | string>(props.defaultValue ?? '');
  const found = limitProblem(props.value !== undefined ? props.value : typed, min);
  const field = typeof label === 'string' ? label : (props['aria-label'] ?? '');
  const own = !found
    ? undefined
    : found.rule === 'belowMin'
      ? min === 0
        ? t('problems.negative', { field })
        : t('problems.belowMin', { field, min })
      : t('problems.notWholeNumber', { field });
  return (
    <NumberInput
      label={label}
      allowNegative
      allowDecimal
      clampBehavior="none"
      thousandSeparator=","
      placeholder={unlimitedWhenEmpty ? t('apps.unlimited') : undefined}
      error={error || own}
      onChange={(value) => {
        setTyped(value);
        onChange?.(value);
      }}
      {...props}
    />
  );
}
