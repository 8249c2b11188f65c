import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { CSSVariablesResolver, MantineProvider, createTheme, localStorageColorSchemeManager } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, NavigateOptions, To } from 'react-router';
import { App } from './App';
import { queryClient } from './api/query-client';
import { languageReady } from './i18n';
import { SessionProvider } from './session';

// Under <BrowserRouter> (declarative mode) navigate() returns nothing; react-router types it for every mode.
declare module 'react-router' {
  interface NavigateFunction {
    (to: To, options?: NavigateOptions): void;
    (delta: number): void;
  }
}

// Darker shades than Mantine's defaults where text sits on them: white on indigo 8 and gray 7 on white both pass
// WCAG AA contrast (4.5:1), which indigo 6 buttons, the default dimmed gray and red 6 field errors do not. In dark,
// lighter ones: the default dimmed (dark 2 on dark 7) is about 4:1.
const theme = createTheme({ primaryColor: 'indigo', primaryShade: 8, defaultRadius: 'md' });
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--mantine-primary-color-light-color': 'var(--mantine-color-indigo-9)',
    '--mantine-color-indigo-light-color': 'var(--mantine-color-indigo-9)',
    '--mantine-color-teal-light-color': 'var(--mantine-color-teal-9)',
    '--mantine-color-red-light-color': 'var(--mantine-color-red-9)',
    '--mantine-color-gray-light-color': 'var(--mantine-color-gray-8)',
    '--mantine-color-yellow-light-color': 'var(--mantine-color-yellow-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
// Light, dark, or the system's (the default); the choice of the header's switch is kept on this browser.
const colorSchemeManager = localStorageColorSchemeManager({ key: 'gateway.console.color-scheme' });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element to render the console into');
// The first render waits for the browser's language (fetched first when it is not English): no English flash.
void languageReady.then(() =>
  createRoot(root).render(
    <StrictMode>
      <MantineProvider
        theme={theme}
        defaultColorScheme="auto"
        colorSchemeManager={colorSchemeManager}
        cssVariablesResolver={contrast}
      >
        <Notifications position="top-right" />
        <QueryClientProvider client={queryClient}>
          <BrowserRouter basename="/console">
            <SessionProvider>
              <App />
            </SessionProvider>
          </BrowserRouter>
        </QueryClientProvider>
      </MantineProvider>
    </StrictMode>,
  ),
);
