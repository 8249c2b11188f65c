import { ApplicationsListingBackfill } from '../../apps/api/src/console/applications/applications-listing-backfill';
import { getConnectionToken } from '@nestjs/mongoose';
import { Connection } from 'mongoose';
import { consoleClient, ConsoleUser, createOperator } from '../helpers/console';
import { createApplication, RunningApi, startApi, testEnv } from '../helpers/gateway';

/**
 * docs/contracts.md (operators): `GET /console/api/admin/applications` lists every account's applications newest
 * first, a page at a time by `cursor`, through real HTTP against Redis and FerretDB: every application exactly once
 * across the pages, none lost or repeated when applications are created between pages, and the applications stored
 * before the listing was a feed filed into it once.
 */
describe("operators' listing of every application", () => {
  let api: RunningApi;
  let operator: ConsoleUser & { id: string };
  let member: ConsoleUser;
  const client = () => consoleClient(api.url);
  type Listed = { id: string; name: string; owner_email: string | null; status: string };

  async function everyPage(limit: number, between?: (page: number) => Promise<void>): Promise<Listed[][]> {
    const pages: Listed[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/admin/applications?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await client().call('GET', query, operator);
      expect(answer.status).toBe(200);
      pages.push(answer.body.data);
      cursor = answer.body.next;
      await between?.(pages.length);
    } while (cursor);
    return pages;
  }

  beforeAll(async () => {
    api = await startApi(testEnv({ CONSOLE_SIGNUP: 'open' }));
    operator = await createOperator(api, 'fleet-ops@example.com');
    member = await client().register('fleet-member@example.com');
  });

  afterAll(() => api?.close());

  it('pages through every application newest first, each exactly once, with its owner', async () => {
    const created: string[] = [];
    for (let i = 0; i < 23; i++) {
      const answer = await client().call('POST', '/applications', member, { name: `member app ${i}` });
      expect(answer.status).toBe(201);
      created.push(answer.body.id);
    }
    // Applications made outside the console (the CLI's path) are listed too, without an owner.
    for (let i = 0; i < 4; i++) created.push((await createApplication(api, `cli app ${i}`)).appId);
    await client().call('DELETE', `/applications/${created[3]}`, member);

    const pages = await everyPage(10);
    expect(pages.map((page) => page.length)).toEqual([10, 10, 7]);
    const listed = pages.flat();
    // Newest first: the reverse of the order they were created in; none missing, none twice.
    expect(listed.map((app) => app.id)).toEqual([...created].reverse());
    expect(listed.find((app) => app.name === 'member app 0')?.owner_email).toBe('fleet-member@example.com');
    expect(listed.find((app) => app.name === 'cli app 0')?.owner_email).toBeNull();
    expect(listed.find((app) => app.id === created[3])?.status).toBe('revoked');
  });

  it('neither repeats nor drops an application when others are created between pages', async () => {
    const before = (await everyPage(200)).flat().map((app) => app.id);
    const during: string[] = [];
    const pages = await everyPage(5, async () => {
      during.push((await client().call('POST', '/applications', member, { name: `during ${during.length}` })).body.id);
    });
    const listed = pages.flat().map((app) => app.id);
    expect(listed).toEqual(before);
    // The ones created meanwhile are newer than the cursor: a fresh first page starts with them.
    const fresh = (await everyPage(200)).flat().map((app) => app.id);
    expect(fresh).toEqual([...[...during].reverse(), ...before]);
  });

  it('refuses a cursor it did not hand out', async () => {
    const refused = await client().call('GET', '/admin/applications?cursor=not-a-cursor', operator);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'InvalidParameter', param: 'cursor' });
    const tooLarge = await client().call('GET', '/admin/applications?limit=201', operator);
    expect(tooLarge.status).toBe(400);
    expect((await client().call('GET', '/admin/applications', member)).status).toBe(403);
  });

  it('files the applications stored before the listing was a feed, once, oldest first', async () => {
    const listedBefore = (await everyPage(200)).flat().map((app) => app.id);
    const connection = api.app.get<Connection>(getConnectionToken());
    const applications = connection.db!.collection('applications');
    const template = await applications.findOne({ _id: listedBefore[0] as never });
    const earlier = ['app_earlierA', 'app_earlierB'];
    await applications.insertMany(
      earlier.map((id, i) => ({
        ...template,
        _id: id as never,
        name: `stored earlier ${i}`,
        createdAt: new Date(Date.UTC(2024, 0, 1 + i)),
      })),
    );
    // A deployment that had applications before: its first start after the change files them.
    await connection.db!.collection('sweep_state').deleteOne({ _id: 'applications-listing' as never });
    const backfill = api.app.get(ApplicationsListingBackfill);
    await backfill.run();
    await backfill.run();
    // Filed after the ones listed already (numbered as they are filed), in their own creation order; the listed ones
    // keep their places.
    const listed = (await everyPage(200)).flat().map((app) => app.id);
    expect(listed).toHaveLength(listedBefore.length + 2);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.slice(0, 2)).toEqual(['app_earlierB', 'app_earlierA']);
    expect(listed.slice(2)).toEqual(listedBefore);
  });
});
