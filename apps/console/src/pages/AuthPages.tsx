import {
  Alert,
  Anchor,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { isEmail, hasLength, useForm } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useErrorText } from '../api/use-error-text';
import { LanguageSwitch } from '../components/Layout';
import { Language } from '../i18n';
import { useSession } from '../session';

interface Credentials {
  email: string;
  password: string;
  invitation: string;
}

function useCredentialsForm(invitation = '') {
  const { t } = useTranslation();
  return useForm<Credentials>({
    mode: 'uncontrolled',
    initialValues: { email: '', password: '', invitation },
    validate: {
      email: isEmail(t('auth.emailInvalid')),
      password: hasLength({ min: 10, max: 200 }, t('auth.passwordShort')),
    },
  });
}

function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  const { t, i18n } = useTranslation();
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        <Group justify="space-between" mb="md">
          <Text fw={700}>{t('brand')}</Text>
          <LanguageSwitch value={i18n.language as Language} />
        </Group>
        <Title order={1} size="h3" mb="lg">
          {title}
        </Title>
        {children}
      </Paper>
    </Center>
  );
}

export function SignInPage() {
  const { t } = useTranslation();
  const { signIn, ended } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const form = useCredentialsForm();
  const send = async ({ email, password }: Credentials) => {
    await signIn(email, password);
    navigate((location.state as { from?: string } | null)?.from ?? '/applications', { replace: true });
  };
  return (
    <CredentialsPage
      title={t('auth.signInTitle')}
      form={form}
      send={send}
      submitLabel={t('auth.signIn')}
      notice={ended ? t('serverErrors.MissingAuthorization') : undefined}
      footer={
        <Anchor component={Link} to="/sign-up" size="sm">
          {t('auth.toSignUp')}
        </Anchor>
      }
    >
      <PasswordInput
        label={t('auth.password')}
        autoComplete="current-password"
        required
        key={form.key('password')}
        {...form.getInputProps('password')}
      />
    </CredentialsPage>
  );
}

export function SignUpPage() {
  const { t } = useTranslation();
  const { signUp } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const form = useCredentialsForm(params.get('invitation') ?? '');
  const send = async ({ email, password, invitation }: Credentials) => {
    await signUp(email, password, invitation.trim() || undefined);
    navigate('/applications', { replace: true });
  };
  return (
    <CredentialsPage
      title={t('auth.signUpTitle')}
      form={form}
      send={send}
      submitLabel={t('auth.signUp')}
      footer={
        <Anchor component={Link} to="/sign-in" size="sm">
          {t('auth.toSignIn')}
        </Anchor>
      }
    >
      <PasswordInput
        label={t('auth.password')}
        description={t('auth.passwordHint')}
        autoComplete="new-password"
        required
        key={form.key('password')}
        {...form.getInputProps('password')}
      />
      <TextInput label={t('auth.invitation')} key={form.key('invitation')} {...form.getInputProps('invitation')} />
    </CredentialsPage>
  );
}

/** Both pages: the email field, the page's own fields, and the server's refusal above them. */
function CredentialsPage({
  title,
  form,
  send,
  submitLabel,
  notice,
  footer,
  children,
}: {
  title: string;
  form: ReturnType<typeof useCredentialsForm>;
  send: (values: Credentials) => Promise<void>;
  submitLabel: string;
  /** Why the user is here (their session ended), above the form. */
  notice?: string;
  footer: React.ReactNode;
  children: React.ReactNode;
}) {
  const { t } = useTranslation();
  const [problem, setProblem] = useState<string | null>(null);
  const explain = useErrorText();
  const submit = form.onSubmit(async (values) => {
    setProblem(null);
    try {
      await send(values);
    } catch (error) {
      setProblem(explain(error));
    }
  });
  return (
    <AuthFrame title={title}>
      {/* A refusal answers what was sent: once the user edits the form, it no longer applies. */}
      <form onSubmit={submit} onChange={() => setProblem(null)} noValidate>
        <Stack>
          {notice && !problem && (
            <Alert color="indigo" role="status">
              {notice}
            </Alert>
          )}
          {problem && (
            <Alert color="red" role="alert">
              {problem}
            </Alert>
          )}
          <TextInput
            label={t('auth.email')}
            type="email"
            autoComplete="username"
            required
            key={form.key('email')}
            {...form.getInputProps('email')}
          />
          {children}
          <Button type="submit" loading={form.submitting}>
            {submitLabel}
          </Button>
          {footer}
        </Stack>
      </form>
    </AuthFrame>
  );
}
