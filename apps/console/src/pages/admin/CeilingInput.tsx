import { NumberInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * One ceiling of one account, saved when the field is left. A negative number is refused on the field, never
 * changed: the field keeps the minus the operator typed. Empty means no ceiling (null lifts it).
 */
export function CeilingInput({
  label,
  value,
  onSave,
}: {
  label: string;
  value: number | null;
  onSave: (value: number | null) => void;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(value === null ? '' : String(value));
  const [error, setError] = useState<string | null>(null);
  const leave = () => {
    const typed = text.trim();
    if (typed !== '' && !/^\d+$/.test(typed)) return setError(t('admin.notNegative'));
    setError(null);
    const next = typed === '' ? null : Number(typed);
    if (next !== value) onSave(next);
  };
  return (
    <NumberInput
      aria-label={label}
      size="xs"
      w={150}
      allowDecimal={false}
      placeholder={t('apps.unlimited')}
      value={text}
      error={error}
      // The default error red is too light on white for WCAG AA: the message is darker, the typed value stays plain.
      errorProps={{ c: 'red.9' }}
      styles={{ input: { color: 'var(--mantine-color-text)' } }}
      onChange={(next) => setText(String(next))}
      onBlur={leave}
    />
  );
}
