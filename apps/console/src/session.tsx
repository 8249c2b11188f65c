import { useQueryClient } from '@tanstack/react-query';
import { createContext, ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { get, onSessionEnded, post, rememberCsrfToken } from './api/client';
import type { SessionState as SignedInOrOut, SessionUser, SignedIn, SignUpAccepted } from './api/types';

interface SessionState {
  /** undefined while the first look-up runs; null when signed out. */
  user: SessionUser | null | undefined;
  /** The server ended the session under the user (expired, revoked): sign-in says so. */
  ended: boolean;
  signIn: (email: string, password: string) => Promise<void>;
  signUp: (email: string, password: string, invitation?: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

/** Who is signed in, from the httpOnly session cookie the server set; the CSRF token comes with it. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [user, setUser] = useState<SessionUser | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);

  const accept = useCallback(({ user: signedIn, csrf_token }: SignedIn) => {
    rememberCsrfToken(csrf_token);
    setEnded(false);
    setUser(signedIn);
  }, []);

  const signedOut = useCallback(() => {
    rememberCsrfToken(null);
    setUser(null);
    // Nothing read under the old session is shown to the next one.
    queryClient.clear();
  }, [queryClient]);

  useEffect(() => {
    get<SignedInOrOut>('/auth/me').then(
      (answer) => (answer.user ? accept(answer) : setUser(null)),
      (error) => {
        console.error(error);
        setUser(null);
      },
    );
  }, [accept]);

  // Any request refused for want of a session: signed out, and the page asks to sign in (App's <SignedIn>).
  useEffect(
    () =>
      onSessionEnded(() => {
        setEnded(true);
        signedOut();
      }),
    [signedOut],
  );

  const state: SessionState = {
    user,
    ended,
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
      signedOut();
    },
  };
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
