import { ProviderError } from '@gateway/providers';
import sharp from 'sharp';

/** A one-colour image to send an image-edit adapter. */
export function solidImage(
  width: number,
  height: number,
  format: 'png' | 'jpeg',
  background: { r: number; g: number; b: number },
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    [format]()
    .toBuffer();
}

/** The ProviderError a call failed with; anything else (or success) fails the test. */
export async function providerFailureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}
