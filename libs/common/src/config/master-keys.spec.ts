import { loadConfig } from './app-config';

const OLD = 'b'.repeat(64);
const NEW = 'C'.repeat(64);

describe('master keys', () => {
  it('reads MASTER_KEY as a list of one', () => {
    expect(loadConfig({ MASTER_KEY: OLD }).masterKeys).toEqual([OLD]);
  });

  it('reads MASTER_KEYS newest first, trimmed and lower-cased', () => {
    expect(loadConfig({ MASTER_KEYS: ` ${NEW} , ${OLD}` }).masterKeys).toEqual([NEW.toLowerCase(), OLD]);
  });

  it('takes MASTER_KEYS when it lists MASTER_KEY too', () => {
    expect(loadConfig({ MASTER_KEYS: `${NEW},${OLD}`, MASTER_KEY: OLD }).masterKeys).toEqual([NEW.toLowerCase(), OLD]);
  });

  it('refuses MASTER_KEY and MASTER_KEYS that disagree', () => {
    expect(() => loadConfig({ MASTER_KEYS: NEW, MASTER_KEY: OLD })).toThrow(
      /MASTER_KEY and MASTER_KEYS are both set and MASTER_KEYS does not list MASTER_KEY; remove MASTER_KEY/,
    );
  });

  it('refuses a start without any master key, an empty value counting as unset', () => {
    expect(() => loadConfig({ MASTER_KEYS: '', MASTER_KEY: '' })).toThrow(/MASTER_KEYS \(or MASTER_KEY\) must be set/);
  });

  it('refuses a malformed or repeated key, naming its place in the list', () => {
    expect(() => loadConfig({ MASTER_KEYS: `${NEW},short` })).toThrow(
      /MASTER_KEYS must list keys of 64 hex characters \(32 random bytes\) each; key 2 is not/,
    );
    expect(() => loadConfig({ MASTER_KEYS: `${NEW},${OLD},${NEW.toLowerCase()}` })).toThrow(
      /MASTER_KEYS lists a key twice/,
    );
    expect(() => loadConfig({ MASTER_KEYS: `${NEW},` })).toThrow(/key 2 is not/);
    expect(() => loadConfig({ MASTER_KEY: 'short' })).toThrow(/MASTER_KEY must be 64 hex characters/);
  });
});
