import type { en } from './en';

// Translation keys are checked against en.ts: `t('no.such.key')` fails the type check.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}
