// The English and Simplified Chinese phrasings of each edit, and how each reads its parameters from the words
// around it. Earlier matchers win where two claim the same words ("flip upside down" is a flip, not a rotation).
import { Adjustable, CropRegion, EditOperation, TextPosition } from './edit-plan';
import {
  CHINESE_NUMERAL,
  anyOf,
  Found,
  WHITE,
  intensity,
  nearest,
  nearestColor,
  nearestDirection,
  nearestPercent,
  parseNumber,
} from './instruction-words';

/** Where a keyword was found: `window` is its clause between the neighbouring keywords, [from, to) the keyword in it. */
export interface MatchContext {
  clause: string;
  window: string;
  from: number;
  to: number;
  keyword: Found;
  quotes: string[];
  /** The clause also lays out several images, so its ratios and percentages belong to that. */
  fusionClause: boolean;
}

/** `unsupported`: recognised, but not something a whole-image editor can do (e.g. blur only the background). */
type MatchOutcome = EditOperation | 'unsupported' | undefined;

export interface OperationMatcher {
  /** Adjacent matches with the same key in one clause are one request ("rotate 90 degrees, clockwise"). */
  key: string;
  pattern: RegExp;
  build(context: MatchContext): MatchOutcome;
}

export const QUOTE_PLACEHOLDER = /\uE000(\d+)\uE001/g;

export const TEXT_WORDS = anyOf(
  /\b(?:add|put|write|insert|overlay|place|type|caption|label|title|text|words?|saying|says|reading|stamp|print)\b/,
  /文字|文本|字样|标题|题字|配文|文案|写|添加|加上|标注|打上|加|字/,
);

const CROP_VERBS = anyOf(
  /\b(?:crop(?:ped)?|cut|trim|keep|extract|isolate|remove|delete|discard)\b/,
  /裁剪|裁切|剪裁|裁掉|剪掉|切掉|截取|保留|只要|只留|去掉|删除|删掉|裁|剪|切/,
);
const REMOVING_VERBS = anyOf(/\b(?:remove|delete|discard|cut\s+(?:off|away))\b/, /裁掉|剪掉|切掉|去掉|删除|删掉/);
const RATIO = /(?<![\d.])(\d{1,2}(?:\.\d+)?)\s*(?:[:：∶xX×]|比)\s*(\d{1,2}(?:\.\d+)?)(?![\d.])/;
const RATIO_WORDS = /\b(?:aspect|ratio)\b|比例|画幅|宽高比/i;
const BACKGROUND_ONLY = /\bbackground\b|背景/i;

const OPPOSITE: Partial<Record<CropRegion, CropRegion>> = {
  left: 'right',
  right: 'left',
  top: 'bottom',
  bottom: 'top',
};

export const OPERATION_MATCHERS: OperationMatcher[] = [
  {
    key: 'text',
    pattern: QUOTE_PLACEHOLDER,
    build: (context) => {
      const text = context.quotes[Number(context.keyword.groups[0])].trim();
      if (text === '') return undefined;
      return {
        kind: 'text',
        text,
        color: nearestColor(context.window, context.from, context.to) ?? WHITE,
        position: textPosition(context),
      };
    },
  },
  {
    key: 'flip',
    pattern: anyOf(
      /\bflip(?:ped|ping|s)?\s+(?:it\s+|(?:the\s+)?(?:image|picture|photo)\s+)?(?:vertically|upside[\s-]*down|top[\s-]+to[\s-]+bottom|up[\s-]+and[\s-]+down)\b/,
      /\bvertical(?:ly)?[\s-]+flip(?:ped)?\b|\bflip\s+vertical\b/,
      /上下翻转|垂直翻转|竖直翻转|上下颠倒|垂直镜像|上下镜像/,
    ),
    build: () => ({ kind: 'flip' }),
  },
  {
    key: 'mirror',
    pattern: anyOf(
      /\bflip(?:ped|ping|s)?\s+(?:it\s+|(?:the\s+)?(?:image|picture|photo)\s+)?(?:horizontally|left[\s-]+to[\s-]+right|side[\s-]+to[\s-]+side)\b/,
      /\bhorizontal(?:ly)?[\s-]+flip(?:ped)?\b|\bflip\s+horizontal\b|\bmirror(?:ed|ing)?\b/,
      // A bare "flip" / 翻转 is the everyday left-right flip.
      /\bflip(?:ped|s)?\b/,
      /左右翻转|水平翻转|左右镜像|水平镜像|镜像翻转|镜像|翻转/,
    ),
    build: () => ({ kind: 'mirror' }),
  },
  {
    key: 'grayscale',
    pattern: anyOf(
      /\b(?:black[\s-]*(?:and|&|n)[\s-]*white|b\s*&\s*w|b\/w|gr[ae]y[\s-]?scale|monochrome|monotone|gr[ae]y\s*tones?)(?![a-z])/,
      /黑白|灰度|去色|单色/,
    ),
    build: () => ({ kind: 'grayscale' }),
  },
  {
    key: 'sepia',
    pattern: anyOf(
      /\b(?:sepia|vintage|retro|old[\s-]+(?:photo|picture|film|fashioned|school)|nostalgic|antique)\b/,
      /复古|怀旧|老照片|旧照片|泛黄|做旧|棕褐色?|褐色调/,
    ),
    build: () => ({ kind: 'sepia' }),
  },
  {
    key: 'invert',
    pattern: anyOf(
      /\b(?:invert(?:ed|s)?(?:\s+(?:the\s+)?colou?rs?)?|negative|inverse\s+colou?rs?|colou?r\s+inver(?:sion|t))\b/,
      /反色|反相|负片|颜色反转|反转颜色|色彩反转/,
    ),
    build: () => ({ kind: 'invert' }),
  },
  {
    key: 'crop-aspect',
    pattern: anyOf(RATIO, /\bsquare\b/, /正方形|方形/),
    build: ({ clause, keyword, fusionClause }) => {
      if (fusionClause && !CROP_VERBS.test(clause)) return undefined;
      const ratio = RATIO.exec(keyword.text);
      if (!ratio) return { kind: 'crop-aspect', width: 1, height: 1 };
      if (!CROP_VERBS.test(clause) && !RATIO_WORDS.test(clause) && !/\b(?:to|into|as|make)\b|为|成/i.test(clause))
        return undefined;
      const [width, height] = [Number(ratio[1]), Number(ratio[2])];
      return width > 0 && height > 0 ? { kind: 'crop-aspect', width, height } : undefined;
    },
  },
  {
    key: 'crop-region',
    // Capture groups, in order: EN corner (vertical, horizontal), EN half, EN centre, ZH corner, ZH half (see cropRegion).
    pattern: anyOf(
      /\b(top|upper|bottom|lower)[\s-]*(left|right)(?:\s+(?:quarter|corner|part|portion|section))?\b/,
      /\b(left|right|top|bottom|upper|lower)\s+half\b/,
      /\b(center|centre|middle)(?:\s+(?:part|portion|region|area|section))?\b/,
      /(左上|右上|左下|右下)(?:角|部分|区域)?/,
      /(左|右|上|下)(?:半|边一半|侧一半)(?:部分|部|边|张|侧)?/,
      /(?:中间|中心|中央|正中)(?:部分|区域)?/,
    ),
    build: ({ clause, keyword }) => {
      if (!CROP_VERBS.test(clause)) return undefined;
      const region = cropRegion(keyword.groups);
      if (region === 'center' && RATIO.test(clause)) return undefined;
      if (!REMOVING_VERBS.test(clause)) return { kind: 'crop-region', region };
      const kept = OPPOSITE[region];
      return kept ? { kind: 'crop-region', region: kept } : 'unsupported';
    },
  },
  {
    key: 'zoom',
    pattern: anyOf(
      /\b(?:zoom(?:ed)?(?:\s+(?:in|out))?|scale[sd]?|resize[sd]?|shrink|downscale|upscale|enlarge|magnify|make\s+(?:it\s+)?(?:smaller|bigger|larger))\b/,
      /缩放|缩小|放大|调整大小|调整尺寸|改变大小|尺寸调整/,
    ),
    build: zoom,
  },
  {
    key: 'rotate',
    pattern: anyOf(
      /\b(?:rotat(?:e|es|ed|ing|ion)|spin)\b|\bupside[\s-]*down\b/,
      /\bturn(?:ed)?\b(?=\s+(?:it\s+|the\s+(?:image|picture|photo)\s+)?(?:by\s+)?-?\d+\s*(?:°|deg))/,
      /(?:顺时针|逆时针|向左|向右)?(?:旋转|转动)|顺时针|逆时针|(?:向左|向右)转|倒置|倒过来|颠倒/,
      /转(?=\s*-?(?:\d+|[零一二两三四五六七八九十百]+)\s*(?:度|°))/,
    ),
    build: rotate,
  },
  {
    key: 'blur',
    pattern: anyOf(
      /\b(?:blur(?:s|red|ry|ring)?|gaussian\s+blur|soften|defocus(?:ed)?|out\s+of\s+focus)\b/,
      /高斯模糊|模糊|虚化|柔化/,
    ),
    build: ({ clause, window, to }) => {
      if (BACKGROUND_ONLY.test(clause)) return 'unsupported';
      return { kind: 'blur', sigma: explicitStrength(window, to) ?? 4 * intensity(window) };
    },
  },
  {
    key: 'sharpen',
    pattern: anyOf(
      /\b(?:sharpen(?:ed|s)?|sharper|crisper|crisp(?:en)?|more\s+details?|enhance\s+(?:the\s+)?details?)\b/,
      /锐化|更清晰|变清晰|清晰一点|清晰一些|提高清晰度|增加清晰度|增强细节/,
    ),
    build: ({ window, to }) => ({ kind: 'sharpen', sigma: explicitStrength(window, to) ?? 1.5 * intensity(window) }),
  },
  adjustment({
    property: 'brightness',
    pattern: anyOf(
      /\b(?:brightness|brighter|brighten(?:ed)?|lighten(?:ed)?|lighter|darker|darken(?:ed)?|dimmer|dim|exposure)\b/,
      /亮度|调亮|变亮|提亮|更亮|亮一[点些]|调暗|变暗|压暗|更暗|暗一[点些]|曝光/,
    ),
    down: /dark|dim|暗/i,
    up: /brighte|lighte|亮(?!度)/i,
    percent: 20,
  }),
  adjustment({
    property: 'contrast',
    pattern: anyOf(/\b(?:contrast|contrasty|punchier|punchy)\b/, /对比度|对比/),
    up: /punch/i,
    percent: 25,
  }),
  adjustment({
    property: 'saturation',
    pattern: anyOf(
      /\b(?:saturation|saturated|saturate|desaturated?|vivid|vibrant|colou?rful|muted|washed[\s-]out)\b/,
      /饱和度|去饱和|饱和|鲜艳|艳丽|浓郁|淡雅/,
    ),
    down: /desat|muted|washed|去饱和|淡雅/i,
    up: /vivid|vibrant|colou?rful|鲜艳|艳丽|浓郁/i,
    percent: 30,
  }),
  {
    key: 'border',
    pattern: anyOf(/\b(?:border|frame)(?:ed|s)?\b/, /边框|相框|画框|外框|加框|描边|镶边/),
    build: ({ window, from, to }) => {
      const px = nearest(window, /(\d+)\s*(?:px|pixels?|像素)/gi, from, to);
      const weight = /\b(?:thick|wide|heavy|bold)\b|粗|宽/i.test(window)
        ? 2
        : /\b(?:thin|narrow|fine)\b|细|窄/i.test(window)
          ? 0.5
          : 1;
      return {
        kind: 'border',
        color: nearestColor(window, from, to) ?? WHITE,
        width: px ? Math.max(1, Number(px.groups[0])) : undefined,
        weight,
      };
    },
  },
];

interface Adjustment {
  property: Adjustable;
  pattern: RegExp;
  /** Keywords that carry their own direction ("darker", "鲜艳"); the rest take it from nearby words, else up. */
  down?: RegExp;
  up?: RegExp;
  /** The change when no percentage is given, before "slightly"/"much". */
  percent: number;
}

function adjustment({ property, pattern, down, up, percent: usual }: Adjustment): OperationMatcher {
  return {
    key: `adjust:${property}`,
    pattern,
    build: ({ window, from, to, keyword }) => {
      const direction = down?.test(keyword.text)
        ? -1
        : up?.test(keyword.text)
          ? 1
          : (nearestDirection(window, from, to) ?? 1);
      const percent = Math.abs(nearestPercent(window, from, to) ?? usual * intensity(window));
      return { kind: 'adjust', property, factor: clamp(1 + (direction * percent) / 100, 0.05, 5) };
    },
  };
}

function cropRegion(groups: (string | undefined)[]): CropRegion {
  const [vertical, horizontal, half, center, zhCorner, zhHalf] = groups.map((group) => group?.toLowerCase());
  if (vertical && horizontal)
    return `${/top|upper/.test(vertical) ? 'top' : 'bottom'}-${horizontal as 'left' | 'right'}`;
  if (half) return ({ upper: 'top', lower: 'bottom' } as Record<string, CropRegion>)[half] ?? (half as CropRegion);
  if (center) return 'center';
  if (zhCorner) return `${zhCorner[1] === '上' ? 'top' : 'bottom'}-${zhCorner[0] === '左' ? 'left' : 'right'}`;
  if (zhHalf) return ({ 左: 'left', 右: 'right', 上: 'top', 下: 'bottom' } as Record<string, CropRegion>)[zhHalf];
  return 'center';
}

const ANGLE = new RegExp(`(-?\\d+(?:\\.\\d+)?)\\s*(?:°|º|degrees?\\b|deg\\b|度)|(${CHINESE_NUMERAL})\\s*度`, 'gi');
const COUNTER_CLOCKWISE = /counter[\s-]?clockwise|anti[\s-]?clockwise|\bccw\b|\bleft\b|逆时针|向左|左/gi;
const CLOCKWISE = /(?<!counter[\s-]?|anti[\s-]?)clockwise|\bcw\b|\bright\b|顺时针|向右|右/gi;

function rotate({ window, from, to, keyword }: MatchContext): MatchOutcome {
  const background = nearestColor(window, from, to) ?? WHITE;
  if (/upside|倒置|倒过来|颠倒/i.test(keyword.text)) return { kind: 'rotate', degrees: 180, background };
  const angle = nearest(window, ANGLE, from, to);
  const bare = /^\s*(?:by\s+)?(-?\d+(?:\.\d+)?)(?!\s*(?:%|％|px|像素|倍|x\b|:|：|\d))/i.exec(window.slice(to));
  const degrees = angle ? parseNumber(angle.groups[0] ?? angle.groups[1] ?? '') : bare ? Number(bare[1]) : undefined;
  const counter = nearest(window, COUNTER_CLOCKWISE, from, to);
  const clockwise = nearest(window, CLOCKWISE, from, to);
  const turnsLeft =
    counter !== undefined && (clockwise === undefined || gap(counter, from, to) <= gap(clockwise, from, to));
  const magnitude = degrees ?? 90;
  return { kind: 'rotate', degrees: turnsLeft && magnitude > 0 ? -magnitude : magnitude, background };
}

function zoom({ window, to, keyword }: MatchContext): MatchOutcome {
  const word = keyword.text.toLowerCase();
  const shrinks = /shrink|smaller|downscale|zoom(?:ed)?\s+out|缩小/.test(word);
  const enlarges = /enlarge|bigger|larger|upscale|magnify|zoom(?:ed)?\s+in|放大/.test(word);
  const after = window.slice(to);
  if (/\d{2,5}\s*[x×*]\s*\d{2,5}/i.test(after)) return { kind: 'resize' };
  const background = nearestColor(window, 0, window.length) ?? WHITE;
  const percent = new RegExp(`^(.{0,16}?)(\\d+(?:\\.\\d+)?|百分之(?:\\d+|${CHINESE_NUMERAL}))\\s*(%|％)?`, 'i').exec(
    after,
  );
  let factor: number | undefined;
  const multiple = new RegExp(`^.{0,12}?(\\d+(?:\\.\\d+)?|${CHINESE_NUMERAL})\\s*(?:x\\b|×|倍|times\\b)`, 'i').exec(
    after,
  );
  if (multiple) {
    const times = parseNumber(multiple[1]) ?? 1;
    factor = shrinks ? 1 / times : times;
  } else if (percent && (percent[3] || percent[2].startsWith('百分之'))) {
    const value = (parseNumber(percent[2].replace('百分之', '')) ?? 100) / 100;
    const absolute = /\bto\b|到|至|为|成/.test(percent[1]) || !(shrinks || enlarges);
    factor = absolute ? value : shrinks ? 1 - value : 1 + value;
  } else if (/\bhalf\b|一半/.test(after) && !enlarges) {
    factor = 0.5;
  } else if (/zoom(?:ed)?\s+in/.test(word)) {
    factor = 1.5;
  } else if (/zoom(?:ed)?\s+out/.test(word)) {
    factor = 2 / 3;
  }
  if (factor === undefined || Math.abs(factor - 1) < 0.01 || factor <= 0) return { kind: 'resize' };
  return { kind: 'zoom', factor: clamp(factor, 0.1, 8), background };
}

const STRENGTH = anyOf(
  /^\s*(?:by\s+|of\s+|radius\s+|sigma\s+|strength\s+|半径\s*|程度\s*|强度\s*)?(\d+(?:\.\d+)?)\s*(?:px|pixels?|像素)?(?!\s*(?:%|％|度|°|:|：|\d|x\b|倍))/,
);

/** "blur 6", "模糊半径3": a bare strength right after the keyword, in output pixels. */
function explicitStrength(window: string, to: number): number | undefined {
  const found = STRENGTH.exec(window.slice(to));
  return found ? clamp(Number(found[1]), 0.3, 100) : undefined;
}

function textPosition({ window, from, to }: MatchContext): TextPosition {
  const found = nearest(
    window,
    /\b(top|upper|bottom|lower|center|centre|middle)\b|(顶部|上方|顶端|上面|上部|最上|底部|下方|底端|下面|下部|最下|中间|中央|正中|居中)/gi,
    from,
    to,
  );
  const word = found?.text.toLowerCase() ?? '';
  if (/top|upper|顶|上/.test(word)) return 'top';
  if (/center|centre|middle|中|居/.test(word)) return 'center';
  return 'bottom';
}

function gap(found: Found, from: number, to: number): number {
  return found.end <= from ? from - found.end : found.start >= to ? found.start - to : 0;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
