import {
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  SegmentedControl,
  Stack,
  Text,
  Title,
  useMantineColorScheme,
  VisuallyHidden,
} from '@mantine/core';
import { IconDeviceDesktop, IconMoon, IconSun } from '@tabler/icons-react';
import { useDisclosure } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { NavLink as RouterLink, Outlet, useNavigate } from 'react-router';
import { useFailureToast } from '../api/use-error-text';
import { chooseLanguage, Language } from '../i18n';
import { useSession } from '../session';

export function Layout() {
  const { t, i18n } = useTranslation();
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const showFailure = useFailureToast();
  const [opened, { toggle, close }] = useDisclosure(false);
  const leave = async () => {
    try {
      await signOut();
      navigate('/sign-in');
    } catch (error) {
      showFailure(error);
    }
  };
  const links = [
    { to: '/applications', label: t('nav.applications') },
    { to: '/dashboard', label: t('nav.dashboard') },
    { to: '/models', label: t('nav.models') },
    { to: '/requests', label: t('nav.requests') },
    { to: '/audit', label: t('nav.audit') },
    ...(user?.role === 'admin'
      ? [
          { to: '/admin/users', label: t('nav.users') },
          { to: '/admin/applications', label: t('nav.allApplications') },
          { to: '/admin/system', label: t('nav.system') },
        ]
      : []),
  ];
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('nav.menu')} />
            <Title order={1} size="h4">
              {t('brand')}
            </Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Group gap="sm" wrap="nowrap" visibleFrom="sm">
              <ThemeSwitch />
              <LanguageSwitch value={i18n.language as Language} />
            </Group>
            <Text size="sm" visibleFrom="sm" c="dimmed">
              {user?.email}
            </Text>
            <Button variant="subtle" size="compact-sm" onClick={() => void leave()}>
              {t('nav.signOut')}
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label={t('nav.menu')}>
        <Stack gap={4} component="nav">
          {links.map((link) => (
            <NavLink
              key={link.to}
              component={RouterLink}
              to={link.to}
              label={link.label}
              onClick={close}
              variant="filled"
              color="indigo.8"
            />
          ))}
        </Stack>
        {/* On a phone the header has no room for the switches: they are in the menu. */}
        <Stack gap="sm" mt="md" hiddenFrom="sm" align="flex-start">
          <ThemeSwitch />
          <LanguageSwitch value={i18n.language as Language} />
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

const SCHEMES = [
  { value: 'light', icon: IconSun },
  { value: 'dark', icon: IconMoon },
  { value: 'auto', icon: IconDeviceDesktop },
] as const;

/** Light, dark, or as the system says; Mantine keeps the choice in localStorage (main.tsx). */
export function ThemeSwitch() {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <SegmentedControl
      size="xs"
      aria-label={t('theme.label')}
      value={colorScheme}
      onChange={(scheme) => setColorScheme(scheme)}
      data={SCHEMES.map(({ value, icon: Icon }) => ({
        value,
        label: (
          <>
            <Icon size={14} aria-hidden style={{ display: 'block' }} />
            <VisuallyHidden>{t(`theme.${value}`)}</VisuallyHidden>
          </>
        ),
      }))}
    />
  );
}

export function LanguageSwitch({ value }: { value: Language }) {
  const { t } = useTranslation();
  return (
    <SegmentedControl
      size="xs"
      aria-label={t('language.label')}
      value={value}
      onChange={(language) => void chooseLanguage(language)}
      data={[
        { value: 'en', label: 'EN' },
        { value: 'zh-CN', label: '中文' },
      ]}
    />
  );
}
