import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];
const CHOSEN_KEY = 'gateway.console.language';

/**
 * English is in the first page's JavaScript (it is also every missing key's fallback); any other language is its own
 * chunk, fetched only by a browser that shows it, so the first page does not carry every locale.
 */
const OTHER_LANGUAGES: Record<Exclude<Language, 'en'>, () => Promise<Record<string, unknown>>> = {
  'zh-CN': () => import('./zh-CN').then((module) => module.zhCN),
};

/** The language chosen on this browser before, else the browser's own: Chinese for any zh-*, English otherwise. */
function initialLanguage(): Language {
  const chosen = localStorage.getItem(CHOSEN_KEY);
  if (chosen === 'en' || chosen === 'zh-CN') return chosen;
  return navigator.languages.some((tag) => tag.toLowerCase().startsWith('zh')) ? 'zh-CN' : 'en';
}

/** Fetches the language's strings (once), then switches to it: every `t()` re-renders in it together. */
async function showLanguage(language: Language): Promise<void> {
  if (language !== 'en' && !i18n.hasResourceBundle(language, 'translation'))
    i18n.addResourceBundle(language, 'translation', await OTHER_LANGUAGES[language]());
  await i18n.changeLanguage(language);
  document.documentElement.lang = language;
}

export function chooseLanguage(language: Language): Promise<void> {
  localStorage.setItem(CHOSEN_KEY, language);
  return showLanguage(language);
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en } },
  lng: 'en',
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
});

/**
 * Settled once the browser's language is ready (at once for English): main.tsx renders after it, in that language.
 * A language whose strings could not be fetched leaves the console in English rather than blank.
 */
export const languageReady: Promise<void> = showLanguage(initialLanguage()).catch(() => undefined);

export default i18n;
