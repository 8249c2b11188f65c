// Reading multi-image instructions: which inputs a clause names (图1, image 2, the first picture) and how they
// should be combined (side by side, top and bottom, picture-in-picture, blend), in the order the words give.
import { FusionPlan, Placement } from './edit-plan';
import { Found, anyOf, findAll, nearest, nearestPercent } from './instruction-words';

export interface ImageReference {
  /** 0-based position in the request. */
  image: number;
  start: number;
  end: number;
}

const ORDINALS: Record<string, number> = {
  '1': 0,
  '2': 1,
  '3': 2,
  '4': 3,
  '5': 4,
  '6': 5,
  '7': 6,
  '8': 7,
  '9': 8,
  一: 0,
  二: 1,
  三: 2,
  四: 3,
  五: 4,
  六: 5,
  七: 6,
  八: 7,
  九: 8,
  first: 0,
  '1st': 0,
  second: 1,
  '2nd': 1,
  third: 2,
  '3rd': 2,
};

const REFERENCE = anyOf(
  /图\s*([1-9一二三四五六七八九])/,
  /第\s*([1-9一二三])\s*(?:张|幅|个)(?:图片|图像|照片|图)?/,
  /(?:图片|图像|照片)\s*([1-9])/,
  /\b(?:image|img|picture|pic|photo)s?\s*(?:#|no\.?\s*)?([1-9])\b/,
  /\b(first|second|third|1st|2nd|3rd|last)\s+(?:image|img|picture|pic|photo|one)\b/,
);

export function findImageReferences(text: string, imageCount: number): ImageReference[] {
  return findAll(text, REFERENCE).map((found) => {
    const word = found.groups.find((group) => group !== undefined)?.toLowerCase();
    // Every alternative of REFERENCE captures its number or ordinal.
    if (word === undefined) throw new Error(`image reference "${found.text}" captured no number`);
    return { image: word === 'last' ? imageCount - 1 : ORDINALS[word], start: found.start, end: found.end };
  });
}

export function distinctImages(references: ImageReference[]): number[] {
  return [...new Set(references.map((reference) => reference.image))];
}

type FusionKind = FusionPlan['kind'];

export interface FusionIntent {
  kind: FusionKind;
  keyword: Found;
}

const SIDE_BY_SIDE = anyOf(
  /\bside[\s-]+by[\s-]+side\b|\bnext\s+to\s+each\s+other\b|\bleft\s+and\s+right\b/,
  /\bhorizontal(?:ly)?\s+(?:concatenat|stitch|join|combin|merg|collage|montage|arrang)\w*/,
  /\b(?:concatenat|stitch|join|combin|merg|arrang|plac|lay|put)\w*(?:\s+[\w#]+){0,4}?\s+(?:horizontally|in\s+a\s+row)\b/,
  /左右(?:拼接|拼合|排列|合并|并排|放置|组合|排布|摆放|拼)|横向(?:拼接|排列|合并|拼)|水平(?:拼接|排列|合并)|并排|横排/,
);
const TOP_AND_BOTTOM = anyOf(
  /\btop\s+and\s+bottom\b|\bone\s+(?:above|on\s+top\s+of|over)\s+the\s+other\b|\bstack(?:ed|ing|s)?\b/,
  /\bvertical(?:ly)?\s+(?:concatenat|stitch|join|combin|merg|collage|arrang)\w*/,
  /\b(?:concatenat|stitch|join|combin|merg|arrang|plac|put)\w*(?:\s+[\w#]+){0,4}?\s+vertically\b/,
  /上下(?:拼接|拼合|排列|合并|放置|组合|排布|摆放|叠放|拼)|(?:纵向|竖向)(?:拼接|排列|合并|拼)|垂直(?:拼接|排列|合并)|竖排/,
);
const PICTURE_IN_PICTURE = anyOf(/\bpicture[\s-]+in[\s-]+picture\b|\bpip\b/, /画中画/);
/** A verb placing one image on another: "put image 1 on image 2", "把图1放到图2上". */
const PLACING = anyOf(
  /\b(?:put|place|paste|overlay|insert|add|stick|superimpose|position)\w*\b(?:[^,.;]*?)\b(?:on\s+top\s+of|onto|on|into|over|inside|atop|in)\b/,
  /(?:放|贴|叠加|叠|置|嵌|插|摆|加)(?:到|在|入|于|进|至)/,
);
const BLEND = anyOf(
  /\bblend\w*|\bmix(?:ed|ing|es)?\b|\bmerge[ds]?\b|\bfuse[ds]?\b|\bfusion\b|\bcombine[ds]?\b|\bdouble\s+exposure\b|\boverlay\b|\bsuperimpose[ds]?\b/,
  /融合|混合|叠加|合成|交融|双重曝光|二次曝光|合并/,
);
const STITCH = anyOf(/\b(?:stitch|concatenat|collage|montage|join)\w*/, /拼接|拼在一起|拼合|拼图|拼起来/);

const CORNER = anyOf(
  /\b(top|upper|bottom|lower)[\s-]*(left|right)\b|\b(?:center|centre|middle)\b/,
  /(左上|右上|左下|右下)|中间|中央|中心|正中/,
);
const BESIDE = /\b(?:left|right)\s+(?:side\s+)?of\b|\bnext\s+to\b|\bbeside\b|\balongside\b|左边|左侧|右边|右侧|旁边/i;
const ABOVE_BELOW = /\babove\b|\bbelow\b|\bunder(?:neath)?\b|\bbeneath\b|上方|下方|上边|下边|之上|之下/i;
const VERTICAL_HINT = /\bvertical(?:ly)?\b|上下|纵|竖/i;

/** The layout a clause asks for, if any. Named layouts win over verbs that merely place one image on another. */
export function detectFusion(clause: string, references: ImageReference[]): FusionIntent | undefined {
  const first = (kind: FusionKind, pattern: RegExp): FusionIntent | undefined => {
    const found = findAll(clause, pattern)[0];
    return found ? { kind, keyword: found } : undefined;
  };
  const named =
    first('side-by-side', SIDE_BY_SIDE) ??
    first('top-bottom', TOP_AND_BOTTOM) ??
    first('picture-in-picture', PICTURE_IN_PICTURE);
  if (named) return named;
  const placing = references.length > 0 ? first('picture-in-picture', PLACING) : undefined;
  if (placing) {
    if (CORNER.test(clause)) return placing;
    if (BESIDE.test(clause)) return { ...placing, kind: 'side-by-side' };
    if (ABOVE_BELOW.test(clause)) return { ...placing, kind: 'top-bottom' };
    return placing;
  }
  const blend = first('blend', BLEND);
  if (blend) return blend;
  const stitch = first(VERTICAL_HINT.test(clause) ? 'top-bottom' : 'side-by-side', STITCH);
  if (stitch) return stitch;
  if (distinctImages(references).length >= 2) {
    const beside = first('side-by-side', /\b(?:left|right)\b|左边|左侧|右边|右侧|旁边|\bbeside\b|\bnext\s+to\b/i);
    return beside ?? first('top-bottom', /\b(?:above|below|top|bottom)\b|上方|下方|上面|下面|上边|下边|顶部|底部/i);
  }
  return undefined;
}

/**
 * Turns a layout request into a plan over concrete inputs. `clauseImages` are the images the clause names; when
 * it names fewer than two, the images named anywhere in the prompt are used, then all of them in request order.
 */
export function planFusion(
  intent: FusionIntent,
  clause: string,
  clauseReferences: ImageReference[],
  promptImages: number[],
  imageCount: number,
): FusionPlan {
  const all = Array.from({ length: imageCount }, (_, image) => image);
  const named = distinctImages(clauseReferences);
  const chosen = named.length >= 2 ? named : promptImages.length >= 2 ? promptImages : all;

  switch (intent.kind) {
    case 'side-by-side':
    case 'top-bottom':
      return { kind: intent.kind, order: orderByPosition(chosen, clause, clauseReferences) };
    case 'picture-in-picture':
      return pictureInPicture(intent, clause, clauseReferences, chosen);
    case 'blend':
      return { kind: 'blend', order: chosen, weights: blendWeights(clause, clauseReferences, chosen) };
  }
}

const ABSOLUTE_SIDE =
  /^\s*(?:(?:is|goes|sits)\s+)?(?:at|on|to|in)\s+(?:the\s+)?(left|right|top|bottom)\b|^\s*(?:在|放在|位于|置于|放|居)\s*最?(左|右|上|下)(?![左右上下半])/i;
const RELATIVE_SIDE =
  /^\s*(?:(?:is|goes|sits|to|on|at)\s+)*(?:the\s+)?(left|right)\s+(?:side\s+)?of\s*$|^\s*(?:is\s+|goes\s+)?(above|below|under|beneath|on\s+top\s+of)\s*$/i;
const RELATIVE_SIDE_ZH = /^\s*(?:的)?(左边|左侧|右边|右侧|上方|上面|上边|下方|下面|下边)/;

/** -1 before, +1 after: "图2在左" or "image 1 to the right of image 2" reorder the named images. */
function orderByPosition(images: number[], clause: string, references: ImageReference[]): number[] {
  const score = new Map<number, number>();
  references.forEach((reference, index) => {
    const next = references[index + 1];
    const between = clause.slice(reference.end, next ? next.start : reference.end + 16);
    const relative = next ? RELATIVE_SIDE.exec(between) : null;
    const afterNext = next ? RELATIVE_SIDE_ZH.exec(clause.slice(next.end, next.end + 6)) : null;
    const zhLinked = next && /^\s*(?:放在|放到|在|位于|置于|放)\s*$/.test(between);
    const sideWord = relative ? (relative[1] ?? relative[2]) : afterNext && zhLinked ? afterNext[1] : undefined;
    if (next && sideWord !== undefined) {
      const side = sideSign(sideWord.toLowerCase());
      score.set(reference.image, side);
      score.set(next.image, -side);
      return;
    }
    const absolute = ABSOLUTE_SIDE.exec(between);
    if (absolute && !score.has(reference.image))
      score.set(reference.image, sideSign((absolute[1] ?? absolute[2]).toLowerCase()));
  });
  const orderOf = (image: number) => score.get(image) ?? 0;
  return [...images].sort((a, b) => orderOf(a) - orderOf(b));
}

function sideSign(word: string): number {
  return /left|top|above|on\s+top|左|上/.test(word) ? -1 : 1;
}

const BACKGROUND_AFTER = /^\s*(?:作为|为|做|当|作)背景|^\s*as\s+(?:the\s+)?background/i;
const BACKGROUND_BEFORE = /background\s*(?:is\s+|:\s*)?(?:the\s+)?$|背景(?:是|为|用)?\s*$/i;

function pictureInPicture(
  intent: FusionIntent,
  clause: string,
  references: ImageReference[],
  chosen: number[],
): FusionPlan {
  const backgroundReference = references.find(
    (reference) =>
      BACKGROUND_AFTER.test(clause.slice(reference.end)) || BACKGROUND_BEFORE.test(clause.slice(0, reference.start)),
  );
  let base = backgroundReference?.image;
  let overlay = references.find(
    (reference) => reference.end <= intent.keyword.start && reference.image !== base,
  )?.image;
  if (base === undefined)
    base = references.find(
      (reference) => reference.start >= intent.keyword.end - 1 && reference.image !== overlay,
    )?.image;
  if (overlay === undefined) overlay = chosen.find((image) => image !== base);
  if (base === undefined) base = [...chosen].reverse().find((image) => image !== overlay);
  const percent = nearestPercent(clause, intent.keyword.start, intent.keyword.end);
  return {
    kind: 'picture-in-picture',
    base: base ?? 0,
    overlay: overlay ?? 0,
    placement: placement(clause),
    scale: percent ? Math.min(0.9, Math.max(0.05, Math.abs(percent) / 100)) : 0.3,
  };
}

function placement(clause: string): Placement {
  const found = CORNER.exec(clause);
  if (!found) return 'bottom-right';
  const [vertical, horizontal, zh] = [found[1], found[2], found[3]];
  if (vertical && horizontal)
    return `${/top|upper/i.test(vertical) ? 'top' : 'bottom'}-${horizontal.toLowerCase() as 'left' | 'right'}`;
  if (zh) return `${zh[1] === '上' ? 'top' : 'bottom'}-${zh[0] === '左' ? 'left' : 'right'}`;
  return 'center';
}

const RATIO_PAIR = /(?<![\d.])(\d+(?:\.\d+)?)\s*(?:[:：/]|比)\s*(\d+(?:\.\d+)?)(?![\d.])/;

/** "7:3" gives the first image 70 %; a percentage counts for the image it stands next to (the overlay by default). */
function blendWeights(clause: string, references: ImageReference[], order: number[]): number[] {
  if (order.length !== 2) return order.map(() => 1 / order.length);
  const pair = RATIO_PAIR.exec(clause);
  const [first, second] = pair ? [Number(pair[1]), Number(pair[2])] : [0, 0];
  if (first + second > 0) return [first / (first + second), second / (first + second)];
  const percent = nearest(clause, /(\d+(?:\.\d+)?)\s*(?:%|％)/g, 0, clause.length);
  if (!percent) return [0.5, 0.5];
  const share = Math.min(1, Number(percent.groups[0]) / 100);
  const closest = references.reduce<ImageReference | undefined>((best, reference) => {
    const distance = (r: ImageReference) => Math.min(Math.abs(r.start - percent.end), Math.abs(percent.start - r.end));
    return !best || distance(reference) < distance(best) ? reference : best;
  }, undefined);
  return closest?.image === order[0] ? [share, 1 - share] : [1 - share, share];
}
