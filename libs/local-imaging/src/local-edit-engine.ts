// The embedded default image-edit "model": parses the instruction, edits the inputs with sharp, fits the result to
// the output size and reports what it did. No network, no weights, byte-identical for the same inputs and seed.
import { Injectable } from '@nestjs/common';
import { decodeRaster, encodePng, OutputSize, Raster, watermark } from '@gateway/imaging';
import { applyDecoration } from './decorations';
import { EditOperation, EditPlan, FusionPlan, Language, PlannedStep, isDecoration } from './edit-plan';
import { composeImages } from './fusion';
import { imagesOf, parseInstruction } from './instruction-parser';
import { withoutUnwanted } from './negative-prompt';
import { describeFusion, describeOperation, imageName } from './operation-labels';
import { applyOperation } from './operations';
import { fitToOutput } from './output-fit';
import { revisedPrompt } from './revised-prompt';
import { seededRandom } from './seeded-random';
import { VariationTweak, applyToneCurve, applyVariationTweak, seededToneCurve, variationTweak } from './variation';

export interface LocalEditRequest {
  /** 1–3 decoded inputs as buffers sharp can read (PNG/JPEG/WEBP/TIFF/GIF; the caller already converted BMP to PNG), in array order (图1, 图2, 图3). */
  images: Buffer[];
  /** The instruction (already truncated to 800 code points by the caller). */
  prompt: string;
  negativePrompt?: string;
  /** 0..2147483647; together with `variation` makes the output byte-identical run to run. */
  seed: number;
  /** 0-based index of this output among the request's n outputs; n > 1 gives seeded variations (visibly different but faithful to the instruction). */
  variation: number;
  /** Final output size (from outputGeometry); the engine returns exactly this size. */
  output: OutputSize;
  watermark: boolean;
}

export interface LocalEditResult {
  /** Always PNG, exactly output.width × output.height. */
  png: Buffer;
  /** What was understood and applied, and what could not be acted on, in the instruction's language. */
  revisedPrompt: string;
  /** English labels in the order applied, e.g. ['side by side (image 2, image 1)', 'grayscale', 'rotate 90°']. */
  applied: string[];
  /** Phrases of the instruction it could not act on. */
  ignored: string[];
}

const MAX_IMAGES = 3;
const MAX_OUTPUT_SIDE = 8192;
/** Edits that keep only part of the picture, which then needs more than the output's resolution to stay sharp. */
const MAGNIFYING = new Set<EditOperation['kind']>(['crop-region', 'crop-aspect', 'zoom']);

@Injectable()
export class LocalEditEngine {
  async edit(request: LocalEditRequest): Promise<LocalEditResult> {
    checkRequest(request);
    const { output } = request;
    const plan = parseInstruction(request.prompt, request.images.length);
    const negativePrompt = request.negativePrompt?.trim() || undefined;
    const { steps, cancelled } = withoutUnwanted(plan.steps, negativePrompt, request.images.length);
    // Drawn in a fixed order, whatever the instruction holds: the variation tweak, then the tone curve.
    const random = seededRandom(request.seed, request.variation);
    const tweak = variationTweak(random, request.variation);
    const toneCurve = seededToneCurve(random);
    const log = new EditLog();

    const inputs = await editInputs(request, plan, steps, tweak, log);
    let picture = inputs.get(plan.subject);
    if (!picture) throw new Error(`image ${plan.subject + 1}, the plan's subject, was not decoded`);
    if (plan.fusion) picture = log.did(plan.fusion, await composeImages(plan.fusion, inputs));
    const global = steps.filter((step) => step.image === undefined);
    for (const step of global) {
      if (!isDecoration(step.operation))
        picture = log.did(step, await applyOperation(picture, step.operation, scaleOf(picture, output)));
    }
    const fitted = await fitToOutput(picture, output);
    // Decorations go on the final frame, so they are crisp and sized in output pixels.
    let frame = applyToneCurve(fitted.raster, toneCurve);
    for (const step of global) {
      if (isDecoration(step.operation)) frame = log.tried(step, await applyDecoration(frame, step.operation)) ?? frame;
    }
    if (request.watermark) frame = await watermark(frame);

    const ignored = [...plan.ignored, ...log.failed.map((step) => stepLabel(step, plan.language))];
    return {
      png: await encodePng(frame),
      revisedPrompt: revisedPrompt({
        language: plan.language,
        applied: log.labels(plan.language),
        ignored,
        notes: plan.notes,
        negativePrompt,
        cancelled: cancelled.map((step) => stepLabel(step, plan.language)),
        output,
        fit: fitted.mode,
      }),
      applied: log.labels('en'),
      ignored,
    };
  }
}

/** What became of each step, in the order things happened, for `applied`, `ignored` and the revised prompt. */
class EditLog {
  private readonly done: (PlannedStep | FusionPlan)[] = [];
  readonly failed: PlannedStep[] = [];

  did(item: PlannedStep | FusionPlan, result: Raster): Raster {
    this.done.push(item);
    return result;
  }

  /** Undefined when the step could not be carried out (text with no usable font). */
  tried(step: PlannedStep, result: Raster | undefined): Raster | undefined {
    (result ? this.done : this.failed).push(step);
    return result;
  }

  labels(language: Language): string[] {
    return this.done.map((item) => ('operation' in item ? stepLabel(item, language) : describeFusion(item, language)));
  }
}

/** Decodes the inputs the plan uses and applies the steps aimed at each of them, before any fusion. */
async function editInputs(
  request: LocalEditRequest,
  plan: EditPlan,
  steps: PlannedStep[],
  tweak: VariationTweak | undefined,
  log: EditLog,
) {
  const used = plan.fusion ? imagesOf(plan.fusion) : [plan.subject];
  const maxSide = workingSide(plan, request.output);
  const decoded = await Promise.all(used.map((image) => decodeInput(request.images[image], image, maxSide)));
  const inputs = new Map<number, Raster>();
  for (const [position, image] of used.entries()) {
    let raster = tweak ? await applyVariationTweak(decoded[position], tweak) : decoded[position];
    for (const step of steps.filter((candidate) => candidate.image === image)) {
      const scale = scaleOf(raster, request.output);
      const edited = isDecoration(step.operation)
        ? await applyDecoration(raster, step.operation, scale)
        : await applyOperation(raster, step.operation, scale);
      raster = log.tried(step, edited) ?? raster;
    }
    inputs.set(image, raster);
  }
  return inputs;
}

function stepLabel(step: PlannedStep, language: Language): string {
  const label = describeOperation(step.operation, language);
  if (step.image === undefined) return label;
  return language === 'zh'
    ? `${label}（${imageName(step.image, language)}）`
    : `${label} (${imageName(step.image, language)})`;
}

function checkRequest({ images, output, seed, variation }: LocalEditRequest): void {
  if (images.length < 1 || images.length > MAX_IMAGES)
    throw new RangeError(`expected 1 to ${MAX_IMAGES} images, got ${images.length}`);
  for (const side of [output.width, output.height]) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_OUTPUT_SIDE)
      throw new RangeError(`output sides must be integers in 1..${MAX_OUTPUT_SIDE}`);
  }
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError('seed must be a non-negative integer');
  if (!Number.isInteger(variation) || variation < 0) throw new RangeError('variation must be a non-negative integer');
}

/**
 * Inputs are shrunk on decoding to the output's longer side, or twice that when the plan crops or zooms: every edit
 * then works on about as many pixels as the output has, which keeps large inputs fast without losing visible detail.
 */
function workingSide(plan: EditPlan, output: OutputSize): number {
  const magnifies = plan.steps.some((step) => MAGNIFYING.has(step.operation.kind));
  return Math.max(output.width, output.height) * (magnifies ? 2 : 1);
}

async function decodeInput(image: Buffer, index: number, maxSide: number): Promise<Raster> {
  try {
    return await decodeRaster(image, maxSide);
  } catch (error) {
    throw new Error(`image ${index + 1} could not be decoded: ${(error as Error).message}`, { cause: error });
  }
}

/** Output pixels per picture pixel if the picture were fitted whole into the output. */
function scaleOf(image: Raster, output: OutputSize): number {
  return Math.min(output.width / image.width, output.height / image.height);
}
