import { Center, Loader } from '@mantine/core';
import { lazy, ReactNode, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { Layout } from './components/Layout';
import { SignInPage, SignUpPage } from './pages/AuthPages';
import { useSession } from './session';

// Every page but sign-in and sign-up: loaded when opened, so the first page carries only what signing in needs (the
// applications list, the first page after it, would bring the tables and their scroll areas; charts are the biggest).
const ApplicationsPage = lazy(() =>
  import('./pages/ApplicationsPage').then((module) => ({ default: module.ApplicationsPage })),
);
const ApplicationPage = lazy(() => import('./pages/ApplicationPage'));
const NewApplicationPage = lazy(() => import('./pages/NewApplicationPage'));
const ModelsPage = lazy(() => import('./pages/ModelsPage'));
const DashboardPage = lazy(() => import('./pages/DashboardPage'));
const AuditPage = lazy(() => import('./pages/AuditPage'));
const RequestsPage = lazy(() => import('./pages/RequestsPage'));
const UsersPage = lazy(() => import('./pages/admin/UsersPage'));
const SystemPage = lazy(() => import('./pages/admin/SystemPage'));
const AllApplicationsPage = lazy(() => import('./pages/admin/AllApplicationsPage'));

export function App() {
  const { t } = useTranslation();
  return (
    <Suspense
      fallback={
        <Center h="50vh">
          <Loader aria-label={t('common.loading')} />
        </Center>
      }
    >
      <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="/sign-up" element={<SignUpPage />} />
        <Route
          element={
            <SignedIn>
              <Layout />
            </SignedIn>
          }
        >
          <Route index element={<Navigate to="/applications" replace />} />
          <Route path="/applications" element={<ApplicationsPage />} />
          <Route path="/applications/new" element={<NewApplicationPage />} />
          <Route path="/applications/:id/*" element={<ApplicationPage />} />
          <Route path="/dashboard" element={<DashboardPage />} />
          <Route path="/models" element={<ModelsPage />} />
          <Route path="/requests" element={<RequestsPage />} />
          <Route path="/audit" element={<AuditPage />} />
          <Route
            path="/admin/users"
            element={
              <Operator>
                <UsersPage />
              </Operator>
            }
          />
          <Route
            path="/admin/applications"
            element={
              <Operator>
                <AllApplicationsPage />
              </Operator>
            }
          />
          <Route
            path="/admin/system"
            element={
              <Operator>
                <SystemPage />
              </Operator>
            }
          />
          <Route path="*" element={<Navigate to="/applications" replace />} />
        </Route>
      </Routes>
    </Suspense>
  );
}

function SignedIn({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const location = useLocation();
  const { t } = useTranslation();
  if (user === undefined)
    return (
      <Center h="50vh">
        <Loader aria-label={t('common.loading')} />
      </Center>
    );
  // After signing in, back to this very page (a session that ended under the user included).
  if (user === null) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

function Operator({ children }: { children: ReactNode }) {
  const { user } = useSession();
  return user?.role === 'admin' ? <>{children}</> : <Navigate to="/applications" replace />;
}
