import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LimitInput, limitProblem } from '../../components/LimitInput';

/**
 * One ceiling of one account, saved when the field is left: the application form's limit field, so a minus sign or
 * a fraction stays on screen with an error and is never saved. Empty means no ceiling (null lifts it).
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
  const [text, setText] = useState<number | string>(value ?? '');
  const problem = limitProblem(text);
  const leave = () => {
    if (problem) return;
    const typed = String(text).replace(/,/g, '').trim();
    const next = typed === '' ? null : Number(typed);
    if (next !== value) onSave(next);
  };
  return (
    <LimitInput
      aria-label={label}
      size="xs"
      w={150}
      unlimitedWhenEmpty
      value={text}
      // A negative ceiling is refused in the words that say what empty means here.
      error={problem?.rule === 'belowMin' ? t('admin.notNegative') : undefined}
      // The default error red is too light on white for WCAG AA: the message is darker, the typed value stays plain.
      errorProps={{ c: 'red.9' }}
      styles={{ input: { color: 'var(--mantine-color-text)' } }}
      onChange={setText}
      onBlur={leave}
    />
  );
}
