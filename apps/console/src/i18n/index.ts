import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { zhCN } from './zh-CN';

export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];
const CHOSEN_KEY = 'gateway.console.language';

/** The language chosen on this browser before, else the browser's own: Chinese for any zh-*, English otherwise. */
function initialLanguage(): Language {
  const chosen = localStorage.getItem(CHOSEN_KEY);
  if (chosen === 'en' || chosen === 'zh-CN') return chosen;
  return navigator.languages.some((tag) => tag.toLowerCase().startsWith('zh')) ? 'zh-CN' : 'en';
}

export function chooseLanguage(language: Language): void {
  localStorage.setItem(CHOSEN_KEY, language);
  void i18n.changeLanguage(language);
  document.documentElement.lang = language;
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
  lng: initialLanguage(),
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
});
document.documentElement.lang = i18n.language;

export default i18n;
