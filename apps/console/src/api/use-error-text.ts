import { useTranslation } from 'react-i18next';
import { ApiError } from './client';
import { notify } from '../components/notify';
import { en } from '../i18n/en';

const knownCode = (code: string): code is keyof typeof en.serverErrors => Object.hasOwn(en.serverErrors, code);

/**
 * What went wrong, in the console's language. In English the server's own words, which name the exact limit or
 * value; in another language the translation of its error code, else (a code the console does not know) its words.
 */
export function useErrorText(): (error: unknown) => string {
  const { t, i18n } = useTranslation();
  return (error) => {
    if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
    if (error.status === 429)
      return t('auth.tooManyAttempts', { minutes: Math.ceil((error.retryAfterSeconds ?? 60) / 60) });
    return i18n.resolvedLanguage !== 'en' && knownCode(error.code) ? t(`serverErrors.${error.code}`) : error.message;
  };
}

/** Shows what went wrong with an action (saving, rotating, redelivering…) as a red toast. */
export function useFailureToast(): (error: unknown) => void {
  const { t } = useTranslation();
  const explain = useErrorText();
  return (error) => notify(t('errors.generic', { message: explain(error) }), 'red');
}
