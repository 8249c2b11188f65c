import { applicationFieldProblem, describeFieldProblem } from './application-fields';

describe('application field rules (shared by the API and the console forms)', () => {
  it.each([
    ['name', '', 'name is required'],
    ['name', 'x'.repeat(101), 'name must be at most 100 characters'],
    ['type', 'desktop', 'type must be one of: web, mobile, backend'],
    ['daily_call_limit', 1.5, 'daily_call_limit must be a whole number'],
    ['daily_call_limit', -1, 'daily_call_limit must be 0 or more'],
    ['concurrency_limit', 100_001, 'concurrency_limit must be at most 100000'],
    ['ip_whitelist', ['10.0.0.0/33'], 'ip_whitelist: "10.0.0.0/33" is not an IPv4/IPv6 address or CIDR range'],
    ['ip_whitelist', ['1.2.3'], 'ip_whitelist: "1.2.3" is not an IPv4/IPv6 address or CIDR range'],
    ['ip_whitelist', Array(101).fill('10.0.0.1'), 'ip_whitelist takes at most 100 entries'],
    ['ip_whitelist', ['1'.repeat(65)], 'ip_whitelist must be at most 64 characters'],
    ['callback_url', 'ftp://example.com/x', 'callback_url must be an http or https URL'],
    ['scope.capabilities', ['video'], 'scope.capabilities must be one of: image-edit, embeddings, chat'],
    ['log_bodies', 'yes', 'log_bodies must be true or false'],
    ['body_retention_days', 0, 'body_retention_days must be 1 or more'],
    ['body_retention_days', -3, 'body_retention_days must be 1 or more'],
    ['body_retention_days', 31, 'body_retention_days must be at most 30'],
    ['body_retention_days', 2.5, 'body_retention_days must be a whole number'],
  ] as const)('refuses %s = %j with "%s"', (field, value, message) => {
    const problem = applicationFieldProblem(field, value);
    expect(problem).not.toBeNull();
    expect(describeFieldProblem(field, problem!)).toBe(message);
  });

  it.each([
    ['name', 'Photo studio'],
    ['daily_call_limit', 0],
    ['token_quota', 1e15],
    ['ip_whitelist', ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32', '::ffff:10.0.0.0/104']],
    ['ip_whitelist', ['2001:0db8:0000:0000:0000:0000:0000:0001/128', '::ffff:255.255.255.255/128']],
    ['callback_url', ''],
    ['callback_url', 'https://hooks.example.com/gateway'],
    ['description', undefined],
    ['log_bodies', true],
    ['body_retention_days', 1],
    ['body_retention_days', 30],
  ] as const)('accepts %s = %j', (field, value) => {
    expect(applicationFieldProblem(field, value)).toBeNull();
  });
});
