import { checkContract } from './contract';

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
    const registered = await call('POST', '/auth/register', undefined, { email, password: 'correct horse battery' });
    const setCookie = registered.headers.get('set-cookie') ?? '';
    return { cookie: setCookie.split(';')[0], csrf: registered.body?.csrf_token, registered };
  }

  return { call, register };
}
