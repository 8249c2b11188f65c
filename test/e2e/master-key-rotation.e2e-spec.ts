import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { getConnectionToken } from '@nestjs/mongoose';
import { Connection } from 'mongoose';
import { EnvSource, masterKeyId, SecretBox } from '@gateway/common';
import { sign, signingString } from '@gateway/tenancy';
import { ENTRY_POINTS } from '../../scripts/processes';
import { OpenAiFake } from '../fakes/openai-fake';
import { dataUri, download, editBody, noisyPng } from '../helpers/images';
import {
  createApplication,
  postJson,
  processEnv,
  RunningApi,
  RunningWorker,
  startApi,
  startWorker,
  testEnv,
} from '../helpers/gateway';

const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('hex');

/** A Secret Key as sealed before key ids (iv.tag.ciphertext), as databases from then hold it. */
function sealWithoutKeyId(masterKeyHex: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(masterKeyHex, 'hex'), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

/** The README's rotation: add the new key first, re-encrypt, then remove the old key. */
describe('master key rotation (MASTER_KEYS, gw secrets:reencrypt)', () => {
  const upstream = new OpenAiFake();
  let base: EnvSource;
  let api: RunningApi;
  let worker: RunningWorker;
  const apps: { appId: string; apiKey: string; secretKey: string }[] = [];
  let oldUrl: string;

  /** Api and worker of one deployment, restarted with other keys on the same database and Redis. */
  async function deploy(keys: EnvSource) {
    await Promise.all([api?.close(), worker?.close()]);
    const env = { ...base, ...keys };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  }

  const gw = (keys: EnvSource, ...args: string[]) =>
    spawnSync(process.execPath, [ENTRY_POINTS.cli, ...args], {
      env: processEnv({ ...base, ...keys }),
      encoding: 'utf8',
    });

  async function signedEmbedding({ appId, secretKey }: { appId: string; secretKey: string }): Promise<number> {
    const body = JSON.stringify({ model: 'text-embedding-v4', input: 'rotated', dimensions: 64 });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomUUID();
    const response = await fetch(`${api.url}/v1/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-app-id': appId,
        'x-timestamp': timestamp,
        'x-nonce': nonce,
        'x-signature': sign(secretKey, signingString('POST', '/v1/embeddings', timestamp, nonce, body)),
      },
      body,
    });
    return response.status;
  }

  async function bearerEmbedding({ apiKey }: { apiKey: string }): Promise<number> {
    const body = { model: 'text-embedding-v4', input: 'rotated', dimensions: 64 };
    return (await postJson(`${api.url}/v1/embeddings`, body, apiKey)).status;
  }

  async function imageUrl(): Promise<string> {
    const { apiKey } = await createApplication(api, 'images');
    const response = await postJson(
      `${api.url}/v1/images/edits`,
      editBody('x-image-edit-plus', [dataUri(await noisyPng(32, 32))], 'blur'),
      apiKey,
    );
    expect(response.status).toBe(200);
    // Path and query only: each deployment below listens on a port of its own.
    const url = new URL(response.body.data[0].url);
    return url.pathname + url.search;
  }

  const fetchFile = (path: string) => download(`${api.url}${path}`);

  const applications = () => api.app.get<Connection>(getConnectionToken()).collection('applications');

  async function sealedSecretKeys(): Promise<Map<string, string>> {
    const docs = await applications()
      .find({}, { projection: { secretKeyEnc: 1 } })
      .toArray();
    return new Map(docs.map((doc) => [String(doc._id), doc.secretKeyEnc as string]));
  }

  beforeAll(async () => {
    await upstream.start();
    base = testEnv({ UPSTREAM_PRIMARY_BASE_URL: upstream.baseUrl, MASTER_KEY: undefined });
    await deploy({ MASTER_KEY: OLD });
    apps.push(await createApplication(api, 'sealed-with-id'));
    const legacy = await createApplication(api, 'sealed-before-key-ids');
    await applications().updateOne(
      { _id: legacy.appId as never },
      { $set: { secretKeyEnc: sealWithoutKeyId(OLD, legacy.secretKey) } },
    );
    apps.push(legacy);
    oldUrl = await imageUrl();
  });

  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await upstream.stop();
  });

  it('keeps old Secret Keys and file URLs working with the new key listed first', async () => {
    await deploy({ MASTER_KEYS: `${NEW},${OLD}` });
    for (const app of apps) expect([await signedEmbedding(app), await bearerEmbedding(app)]).toEqual([200, 200]);
    expect((await fetchFile(oldUrl)).status).toBe(200);
    expect((await fetchFile(await imageUrl())).status).toBe(200);
    // Sealed with the new key from now on, and named by its key id.
    const fresh = await createApplication(api, 'sealed-with-new-key');
    expect((await sealedSecretKeys()).get(fresh.appId)!.split('.')[0]).toBe(masterKeyId(NEW));
    apps.push(fresh);
    expect([await signedEmbedding(fresh), await bearerEmbedding(fresh)]).toEqual([200, 200]);
  });

  it('moves every Secret Key to the new key once, counting what it moved', async () => {
    // The image applications are sealed too: one from before the new key, one (and the fresh one) after it.
    const first = gw({ MASTER_KEYS: `${NEW},${OLD}` }, 'secrets:reencrypt', '--json');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      keyId: masterKeyId(NEW),
      moved: 3,
      alreadyCurrent: 2,
      changedMeanwhile: 0,
      unreadable: [],
      // The API-key checksum keys, stored sealed with OLD when the first deployment started.
      deploymentSecrets: { moved: 1, alreadyCurrent: 0, unreadable: [] },
    });
    const again = gw({ MASTER_KEYS: `${NEW},${OLD}` }, 'secrets:reencrypt');
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(
      `Secret Keys sealed with master key ${masterKeyId(NEW)}: 0 moved, 5 already current, 0 unreadable.`,
    );
    expect(again.stdout).toContain(
      'Deployment secrets (API-key checksum keys): 0 moved, 1 already current, 0 unreadable.',
    );
    for (const sealed of (await sealedSecretKeys()).values()) expect(sealed.split('.')[0]).toBe(masterKeyId(NEW));
  });

  it('works without the old key once re-encrypted, and nothing opens with the old key alone', async () => {
    const newUrl = await imageUrl();
    await deploy({ MASTER_KEYS: NEW });
    // API keys issued under the removed key too: their checksum keys were stored, and moved with the Secret Keys.
    for (const app of apps) expect([await signedEmbedding(app), await bearerEmbedding(app)]).toEqual([200, 200]);
    expect(await bearerEmbedding(await createApplication(api, 'after-rotation'))).toBe(200);
    expect((await fetchFile(newUrl)).status).toBe(200);
    // Issued under the removed key: why the old key stays listed for IMAGE_URL_TTL.
    const old = await fetchFile(oldUrl);
    expect(old.status).toBe(403);
    expect(old.body.error.code).toBe('InvalidUrlSignature');

    const oldBox = new SecretBox([OLD]);
    const sealed = await sealedSecretKeys();
    for (const value of sealed.values()) expect(() => oldBox.open(value)).toThrow();
    const withOldKey = gw({ MASTER_KEY: OLD }, 'secrets:reencrypt');
    expect(withOldKey.status).toBe(1);
    expect(withOldKey.stdout).toContain(`0 moved, 0 already current, ${sealed.size} unreadable.`);
    for (const appId of sealed.keys())
      expect(withOldKey.stdout).toContain(
        `  ${appId}: sealed with key ${masterKeyId(NEW)}, which MASTER_KEYS does not list`,
      );
  });
});
