import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** An application's status; dark shades so the white text passes WCAG AA contrast. */
export function StatusBadge({ status }: { status: 'active' | 'revoked' }) {
  const { t } = useTranslation();
  return (
    <Badge color={status === 'active' ? 'teal.9' : 'gray.7'} variant="filled">
      {status === 'active' ? t('apps.statusActive') : t('apps.statusRevoked')}
    </Badge>
  );
}
