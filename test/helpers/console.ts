import { OperatorSetup } from '@gateway/tenancy';
import { checkContract } from './contract';

const PASSWORD = 'correct horse battery';

/** A console user: a session cookie and its CSRF token, as a browser would hold them. */
export interface ConsoleUser {
  cookie: string;
  csrf: string;
}

/** Calls the console API of the api at `apiUrl` the way the web console does. */
export function consoleClient(apiUrl: string) {
  async function call(method: string, path: string, user?: ConsoleUser, body?: unknown, csrf = true) {
    const response = await fetch(`${apiUrl}/console/api${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(user ? { cookie: user.cookie } : {}),
        ...(user && csrf ? { 'x-csrf-token': user.csrf } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const answer = { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
    await checkContract(method, `${apiUrl}/console/api${path}`, answer);
    return answer;
  }

  async function register(email: string): Promise<ConsoleUser & { registered: Awaited<ReturnType<typeof call>> }> {
    const registered = await call('POST', '/auth/register', undefined, { email, password: PASSWORD });
    const setCookie = registered.headers.get('set-cookie') ?? '';
    return { cookie: setCookie.split(';')[0], csrf: registered.body?.csrf_token, registered };
  }

  return { call, register };
}

/**
 * An operator's account, made as on a fresh install: a sign-up through a one-time operator setup link (what
 * `gw operators:setup-link` prints), then a sign-in.
 */
export async function createOperator(
  api: { url: string; app: { get(token: typeof OperatorSetup): OperatorSetup } },
  email: string,
): Promise<ConsoleUser & { id: string }> {
  const client = consoleClient(api.url);
  const { link } = await api.app.get(OperatorSetup).issueLink(api.url);
  const invitation = new URL(link).searchParams.get('invitation')!;
  const registered = await client.call('POST', '/auth/register', undefined, { email, password: PASSWORD, invitation });
  if (registered.status !== 202) throw new Error(`operator sign-up answered ${registered.status}`);
  const signedIn = await client.call('POST', '/auth/login', undefined, { email, password: PASSWORD });
  if (signedIn.body?.user?.role !== 'admin') throw new Error(`operator sign-in answered ${signedIn.status}`);
  return {
    cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0],
    csrf: signedIn.body.csrf_token,
    id: signedIn.body.user.id,
  };
}
