import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { PlaygroundModel } from './PlaygroundPanel';

/** The models the application may call for one capability; one is always chosen. */
export function ModelSelect({
  models,
  value,
  onChange,
}: {
  models: PlaygroundModel[];
  value: string;
  onChange: (model: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <Select
      label={t('playground.model')}
      data={models.map((entry) => entry.id)}
      value={value}
      onChange={(model) => model && onChange(model)}
      allowDeselect={false}
    />
  );
}
