import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CreateApplicationDto, UpdateApplicationDto } from './application.dto';

const problems = async (type: typeof CreateApplicationDto | typeof UpdateApplicationDto, body: object) =>
  (await validate(plainToInstance(type, body), { whitelist: true, forbidNonWhitelisted: true })).map(
    (error) => error.property,
  );

describe('application fields', () => {
  it.each(['ip_whitelist', 'description', 'scope', 'daily_call_limit', 'callback_url'])(
    'refuses %s: null, which would be stored and read back where a value is promised',
    async (field) => {
      expect(await problems(CreateApplicationDto, { name: 'app', [field]: null })).toEqual([field]);
      expect(await problems(UpdateApplicationDto, { [field]: null })).toEqual([field]);
    },
  );

  it('refuses a null name on update and takes a field left out as not set', async () => {
    expect(await problems(UpdateApplicationDto, { name: null })).toEqual(['name']);
    expect(await problems(UpdateApplicationDto, {})).toEqual([]);
    expect(await problems(CreateApplicationDto, { name: 'app', scope: { models: ['m'] } })).toEqual([]);
  });
});
