import { assertCallbackUrl } from './callback-url';
import { HostResolver } from './dns-pinning';
import { DEFAULT_OUTBOUND_POLICY } from './outbound-policy';

function resolvingTo(...addresses: string[]): HostResolver {
  return () => Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
}

const PUBLIC = resolvingTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c');

/** Jest compares errors by message only; this also pins the class, by its name. */
const refused = (message: string) => expect.objectContaining({ name: 'UnsafeUrlError', message });

describe('assertCallbackUrl', () => {
  it('accepts an http(s) URL whose host resolves only to public addresses', async () => {
    await expect(
      assertCallbackUrl('https://hooks.example.com/model-gateway?token=abc', DEFAULT_OUTBOUND_POLICY, PUBLIC),
    ).resolves.toBeUndefined();
    await expect(
      assertCallbackUrl('http://hooks.example.com:8080/', DEFAULT_OUTBOUND_POLICY, PUBLIC),
    ).resolves.toBeUndefined();
  });

  it('accepts a public IP literal without resolving it', async () => {
    const resolve = jest.fn(PUBLIC);
    await expect(
      assertCallbackUrl('https://93.184.215.14/hooks', DEFAULT_OUTBOUND_POLICY, resolve),
    ).resolves.toBeUndefined();
    await expect(
      assertCallbackUrl('https://[2606:4700:4700::1111]/hooks', DEFAULT_OUTBOUND_POLICY, resolve),
    ).resolves.toBeUndefined();
    expect(resolve).not.toHaveBeenCalled();
  });

  it.each([
    ['ftp://hooks.example.com/', 'URL scheme must be http or https'],
    ['javascript:alert(1)', 'URL scheme must be http or https'],
    ['https://user:pass@hooks.example.com/', 'URL must not contain credentials'],
    ['hooks.example.com/path', 'not a valid URL'],
    ['http://127.0.0.1:3000/hooks', '127.0.0.1 is a loopback address'],
    ['http://[::1]/hooks', '[::1] is a loopback address'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
    ['http://10.0.0.7/hooks', '10.0.0.7 is a private address'],
  ])('refuses %s', async (url, message) => {
    await expect(assertCallbackUrl(url, DEFAULT_OUTBOUND_POLICY, PUBLIC)).rejects.toEqual(refused(message));
  });

  it('refuses a URL longer than 2048 characters', async () => {
    const url = `https://hooks.example.com/${'a'.repeat(2048)}`;
    await expect(assertCallbackUrl(url, DEFAULT_OUTBOUND_POLICY, PUBLIC)).rejects.toEqual(
      refused('callback URL is longer than 2048 characters'),
    );
  });

  it('refuses a host when any of its addresses is refused, naming the kind of address only', async () => {
    const mixed = resolvingTo('93.184.215.14', '10.1.2.3');
    const error = await assertCallbackUrl('https://hooks.example.com/', DEFAULT_OUTBOUND_POLICY, mixed).catch(
      (e: Error) => e,
    );
    expect(error).toEqual(refused('hooks.example.com resolves to a private address'));
    expect((error as Error).message).not.toContain('10.1.2.3');
  });

  it('refuses a host that does not resolve', async () => {
    const nowhere: HostResolver = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND hooks.invalid'), { code: 'ENOTFOUND' }));
    await expect(assertCallbackUrl('https://hooks.invalid/', DEFAULT_OUTBOUND_POLICY, nowhere)).rejects.toEqual(
      refused('hooks.invalid does not resolve'),
    );
    await expect(assertCallbackUrl('https://hooks.invalid/', DEFAULT_OUTBOUND_POLICY, resolvingTo())).rejects.toEqual(
      refused('hooks.invalid does not resolve'),
    );
  });

  it('resolves with the system resolver by default: localhost is loopback', async () => {
    await expect(assertCallbackUrl('http://localhost:3000/hooks', DEFAULT_OUTBOUND_POLICY)).rejects.toEqual(
      refused('localhost resolves to a loopback address'),
    );
  });

  it('lets the policy open private destinations', async () => {
    await expect(
      assertCallbackUrl('http://127.0.0.1:3000/hooks', { allowPrivate: false, allowCidrs: ['127.0.0.1/32'] }),
    ).resolves.toBeUndefined();
    await expect(
      assertCallbackUrl('http://hooks.internal/', { allowPrivate: true, allowCidrs: [] }, resolvingTo('10.1.2.3')),
    ).resolves.toBeUndefined();
  });
});
