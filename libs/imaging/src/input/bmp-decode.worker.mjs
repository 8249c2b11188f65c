// Worker-thread entry of bmpToPng (bmp-decoder.ts): decodes one BMP with bmp-ts, which is synchronous JavaScript
// (about 0.4 s for a 40 MP 1-bit BMP), so the event loop stays free. Plain ESM because a worker thread is loaded by
// Node's own loader, which cannot run the TypeScript sources under jest; nest-cli.json copies it next to the built
// bmp-decoder.js of each app.
//
// bmp-ts yields ABGR for every bit depth (its `toRGBA` option is ignored by the palette decoders), so this reorders
// to RGB, keeping alpha only when it varies: 24-bit and palette images carry 0 and 32-bit BI_RGB carries 255
// throughout, both meaning "opaque".
//
// In:  workerData = the BMP bytes (a Uint8Array).
// Out: one message { width, height, channels: 3 | 4, pixels }, the pixels' buffer transferred.
import { decode } from 'bmp-ts';
import { parentPort, workerData } from 'node:worker_threads';

const bytes = workerData;
const image = decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
const abgr = image.data;
let alphaVaries = false;
for (let i = 4; i < abgr.length; i += 4) {
  if (abgr[i] !== abgr[0]) {
    alphaVaries = true;
    break;
  }
}
const channels = alphaVaries ? 4 : 3;
const pixelCount = image.width * image.height;
const pixels = new Uint8Array(pixelCount * channels);
for (let p = 0, i = 0, o = 0; p < pixelCount; p++, i += 4, o += channels) {
  pixels[o] = abgr[i + 3];
  pixels[o + 1] = abgr[i + 2];
  pixels[o + 2] = abgr[i + 1];
  if (alphaVaries) pixels[o + 3] = abgr[i];
}
parentPort.postMessage({ width: image.width, height: image.height, channels, pixels }, [pixels.buffer]);
