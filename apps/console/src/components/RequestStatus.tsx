import { Alert, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useErrorText } from '../api/use-error-text';

/** What a page shows for its request: a spinner while it runs, what went wrong if it failed, nothing once answered. */
export function RequestStatus({ error, answered }: { error: Error | null | undefined; answered: boolean }) {
  const { t } = useTranslation();
  const explain = useErrorText();
  if (error)
    return (
      <Alert color="red" role="alert">
        {t('errors.generic', { message: explain(error) })}
      </Alert>
    );
  return answered ? null : <Loader aria-label={t('common.loading')} />;
}
