import { notifications } from '@mantine/notifications';
import i18n from '../i18n';

/** A toast with a named close button (screen readers announce "Close", not an unlabelled button). */
export function notify(message: string, color: 'teal' | 'red' = 'teal'): void {
  notifications.show({ message, color, closeButtonProps: { 'aria-label': i18n.t('common.close') } });
}
