import { useTranslation } from 'react-i18next';
import { ApiError } from './client';
import { notify } from '../components/notify';
import { en } from '../i18n/en';

const knownCode = (code: string): code is keyof typeof en.serverErrors => Object.hasOwn(en.serverErrors, code);

/** Codes whose translation says all the server's message says; any other keeps the server's reason beside it. */
const SELF_EXPLAINED = new Set<string>([
  'InvalidCredentials',
  'AccountDisabled',
  'SignupClosed',
  'InvalidInvitation',
  'AlreadyExists',
  'NotFound',
  'OperatorOnly',
  'MissingAuthorization',
  'CsrfRejected',
  'NotReady',
]);

/** The console's label of each field the API may name in `param` (`ip_whitelist[2]` is `ip_whitelist`). */
const PARAM_LABELS = {
  name: 'form.name',
  description: 'form.description',
  type: 'form.type',
  usage_scenario: 'form.usageScenario',
  expected_volume: 'form.expectedVolume',
  'scope.capabilities': 'form.capabilities',
  'scope.models': 'form.models',
  daily_call_limit: 'form.dailyCallLimit',
  concurrency_limit: 'form.concurrencyLimit',
  requests_per_minute: 'form.requestsPerMinute',
  token_quota: 'form.tokenQuota',
  ip_whitelist: 'form.ipWhitelist',
  callback_url: 'form.callbackUrl',
  email: 'auth.email',
  password: 'auth.password',
  invitation: 'auth.invitation',
} as const;

const knownParam = (param: string): param is keyof typeof PARAM_LABELS => Object.hasOwn(PARAM_LABELS, param);

/**
 * What went wrong, in the console's language. In English the server's own words, which name the exact limit or
 * value. In another language a translated summary (the field the server named, else its error code) followed by the
 * server's words whenever they carry the reason (a metadata address, a name that does not resolve, the ceiling).
 */
export function useErrorText(): (error: unknown) => string {
  const { t, i18n } = useTranslation();
  return (error) => {
    if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
    if (error.status === 429)
      return t('auth.tooManyAttempts', { minutes: Math.ceil((error.retryAfterSeconds ?? 60) / 60) });
    if (i18n.resolvedLanguage === 'en') return error.message;
    const param = error.param?.replace(/\[\d+\]$/, '');
    const summary =
      param && knownParam(param)
        ? t('errors.fieldRefused', { field: t(PARAM_LABELS[param]) })
        : knownCode(error.code)
          ? t(`serverErrors.${error.code}`)
          : undefined;
    if (!summary) return error.message;
    return SELF_EXPLAINED.has(error.code) ? summary : t('errors.withReason', { summary, reason: error.message });
  };
}

/** Shows what went wrong with an action (saving, rotating, redelivering…) as a red toast. */
export function useFailureToast(): (error: unknown) => void {
  const { t } = useTranslation();
  const explain = useErrorText();
  return (error) => notify(t('errors.generic', { message: explain(error) }), 'red');
}
