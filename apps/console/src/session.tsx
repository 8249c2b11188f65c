import { createContext, ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { ApiError, get, post, rememberCsrfToken } from './api/client';
import type { SessionUser, SignedIn, SignUpAccepted } from './api/types';

interface SessionState {
  /** undefined while the first look-up runs; null when signed out. */
  user: SessionUser | null | undefined;
  signIn: (email: string, password: string) => Promise<void>;
  signUp: (email: string, password: string, invitation?: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

/** Who is signed in, from the httpOnly session cookie the server set; the CSRF token comes with it. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<SessionUser | null | undefined>(undefined);

  const accept = useCallback(({ user: signedIn, csrf_token }: SignedIn) => {
    rememberCsrfToken(csrf_token);
    setUser(signedIn);
  }, []);

  useEffect(() => {
    get<SignedIn>('/auth/me').then(accept, (error) => {
      if (!(error instanceof ApiError) || error.status !== 401) console.error(error);
      setUser(null);
    });
  }, [accept]);

  const state: SessionState = {
    user,
    signIn: async (email, password) => accept(await post<SignedIn>('/auth/login', { email, password })),
    signUp: async (email, password, invitation) => {
      const answer = await post<SignedIn | SignUpAccepted>('/auth/register', {
        email,
        password,
        ...(invitation ? { invitation } : {}),
      });
      // An invited sign-up opens no session (it answers alike whether or not the email had an account): sign in.
      accept('user' in answer ? answer : await post<SignedIn>('/auth/login', { email, password }));
    },
    signOut: async () => {
      await post('/auth/logout');
      rememberCsrfToken(null);
      setUser(null);
    },
  };
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
