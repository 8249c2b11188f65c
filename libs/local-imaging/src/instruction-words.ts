// Word lists and small readers shared by the instruction parser: colours, numbers (incl. Chinese numerals),
// directions and the filler words that carry no edit of their own.
import { NamedColor } from './edit-plan';

const COLORS: NamedColor[] = [
  { en: 'red', zh: '红色', rgb: [220, 30, 30] },
  { en: 'orange', zh: '橙色', rgb: [255, 140, 0] },
  { en: 'yellow', zh: '黄色', rgb: [255, 215, 0] },
  { en: 'green', zh: '绿色', rgb: [30, 160, 60] },
  { en: 'cyan', zh: '青色', rgb: [0, 200, 220] },
  { en: 'blue', zh: '蓝色', rgb: [30, 80, 220] },
  { en: 'purple', zh: '紫色', rgb: [128, 50, 180] },
  { en: 'pink', zh: '粉色', rgb: [255, 120, 180] },
  { en: 'white', zh: '白色', rgb: [255, 255, 255] },
  { en: 'black', zh: '黑色', rgb: [0, 0, 0] },
  { en: 'gray', zh: '灰色', rgb: [128, 128, 128] },
  { en: 'gold', zh: '金色', rgb: [212, 175, 55] },
  { en: 'silver', zh: '银色', rgb: [192, 192, 192] },
  { en: 'brown', zh: '棕色', rgb: [120, 72, 36] },
];

const COLOR_ALIASES: Record<string, string> = {
  grey: 'gray',
  violet: 'purple',
  magenta: 'pink',
  navy: 'blue',
  golden: 'gold',
  红: 'red',
  橙: 'orange',
  黄: 'yellow',
  绿: 'green',
  青: 'cyan',
  蓝: 'blue',
  紫: 'purple',
  粉: 'pink',
  粉红: 'pink',
  白: 'white',
  黑: 'black',
  灰: 'gray',
  金: 'gold',
  银: 'silver',
  棕: 'brown',
  褐: 'brown',
  咖啡: 'brown',
};

export const WHITE = colorNamed('white');

function colorNamed(name: string): NamedColor {
  const en = COLOR_ALIASES[name] ?? name;
  const color = COLORS.find((candidate) => candidate.en === en);
  if (!color) throw new Error(`unknown colour ${name}`);
  return color;
}

// Chinese colour words need 色 or a following noun (红边框, 白字) so that 黑白 or 上下 never read as colours.
const COLOR_PATTERN = new RegExp(
  [
    '#[0-9a-f]{6}\\b',
    '#[0-9a-f]{3}\\b',
    `\\b(?:${[...COLORS.map((c) => c.en), 'grey', 'violet', 'magenta', 'navy', 'golden'].join('|')})\\b`,
    '(?:粉红|咖啡|[红橙黄绿青蓝紫粉白黑灰金银棕褐])(?:色|(?=边|框|字|背景|底))',
  ].join('|'),
  'gi',
);

function colorAt(word: string): NamedColor {
  if (word.startsWith('#')) {
    const hex = word.length === 4 ? [...word.slice(1)].map((digit) => digit + digit).join('') : word.slice(1);
    const [r, g, b] = [0, 2, 4].map((offset) => parseInt(hex.slice(offset, offset + 2), 16));
    return { en: `#${hex.toLowerCase()}`, zh: `#${hex.toLowerCase()}`, rgb: [r, g, b] };
  }
  return colorNamed(word.toLowerCase().replace(/色$/, ''));
}

/** One case-insensitive pattern from alternatives written one per line (English, then Chinese). */
export function anyOf(...alternatives: RegExp[]): RegExp {
  return new RegExp(alternatives.map((alternative) => `(?:${alternative.source})`).join('|'), 'i');
}

/** A span of text with where it sits, so a parameter can be tied to the nearest keyword. */
export interface Found {
  text: string;
  start: number;
  end: number;
  groups: (string | undefined)[];
}

export function findAll(text: string, pattern: RegExp): Found[] {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return [...text.matchAll(new RegExp(pattern.source, flags))].map((match) => ({
    text: match[0],
    start: match.index,
    end: match.index + match[0].length,
    groups: match.slice(1),
  }));
}

/** The match closest to [from, to): parameters such as "20%" belong to the keyword they stand next to. */
export function nearest(text: string, pattern: RegExp, from: number, to: number): Found | undefined {
  let best: Found | undefined;
  let bestDistance = Infinity;
  for (const found of findAll(text, pattern)) {
    const distance = found.end <= from ? from - found.end : found.start >= to ? found.start - to : 0;
    if (distance < bestDistance) {
      best = found;
      bestDistance = distance;
    }
  }
  return best;
}

export function nearestColor(text: string, from: number, to: number): NamedColor | undefined {
  const found = nearest(text, COLOR_PATTERN, from, to);
  return found ? colorAt(found.text) : undefined;
}

const CHINESE_DIGITS: Record<string, number> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
export const CHINESE_NUMERAL = '[零一二两三四五六七八九十百]+';

/** "九十" → 90, "一百八十" → 180, "两" → 2; undefined when the text is not a Chinese numeral. */
function parseChineseNumber(text: string): number | undefined {
  let total = 0;
  let current = 0;
  for (const char of text) {
    if (char in CHINESE_DIGITS) current = CHINESE_DIGITS[char];
    else if (char === '十') [total, current] = [total + (current || 1) * 10, 0];
    else if (char === '百') [total, current] = [total + (current || 1) * 100, 0];
    else return undefined;
  }
  return total + current;
}

export function parseNumber(text: string): number | undefined {
  const value = /^[+-]?\d/.test(text) ? Number(text) : parseChineseNumber(text);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

const PERCENT = new RegExp(
  `([+-]?\\s*\\d+(?:\\.\\d+)?)\\s*(?:%|％|percent\\b)|百分之(\\d+(?:\\.\\d+)?|${CHINESE_NUMERAL})`,
  'gi',
);

/** The signed percentage nearest to a keyword ("+20%", "百分之三十"). */
export function nearestPercent(text: string, from: number, to: number): number | undefined {
  const found = nearest(text, PERCENT, from, to);
  if (!found) return undefined;
  return parseNumber((found.groups[0] ?? found.groups[1] ?? '').replace(/\s+/g, ''));
}

const UP_WORDS = anyOf(
  /\b(?:increase[sd]?|rais(?:e|ed|ing)|boost(?:ed)?|more|higher|high|up|enhance[sd]?|stronger|add)\b/,
  /提高|增加|调高|提升|加大|增强|加强|上调|更高|高/,
);
const DOWN_WORDS = anyOf(
  /\b(?:decrease[sd]?|reduce[sd]?|lower(?:ed)?|low|less|down|weaker|soften|remove)\b/,
  /降低|减少|调低|减小|减弱|下调|更低|低/,
);

/** +1 or -1 from the direction word nearest the keyword (a signed percentage wins), or undefined. */
export function nearestDirection(text: string, from: number, to: number): 1 | -1 | undefined {
  const signed = nearest(text, /([+-])\s*\d+(?:\.\d+)?\s*(?:%|％)/g, from, to);
  if (signed && distanceTo(signed, from, to) <= 3) return signed.groups[0] === '-' ? -1 : 1;
  const up = nearest(text, UP_WORDS, from, to);
  const down = nearest(text, DOWN_WORDS, from, to);
  if (!up && !down) return undefined;
  if (!down) return 1;
  if (!up) return -1;
  return distanceTo(up, from, to) <= distanceTo(down, from, to) ? 1 : -1;
}

function distanceTo(found: Found, from: number, to: number): number {
  return found.end <= from ? from - found.end : found.start >= to ? found.start - to : 0;
}

const STRONG =
  /\b(?:much|a lot|lots|significantly|greatly|very|strongly|dramatically|heavily|way)\b|大幅|明显|非常|大大|强烈|显著|很|重度|严重/i;
const SLIGHT =
  /\b(?:slightly|a bit|a little|a touch|subtly|somewhat|lightly|gently|mildly)\b|稍微|略微|轻微|微微|一点|一些|稍|略|轻度/i;

/** 2 for "much/大幅", 0.5 for "slightly/稍微", else 1. */
export function intensity(text: string): number {
  if (STRONG.test(text)) return 2;
  if (SLIGHT.test(text)) return 0.5;
  return 1;
}

export function hasHan(text: string): boolean {
  return /\p{Script=Han}/u.test(text);
}

// Words that say nothing an editor could act on by themselves; whatever else is left of a clause is reported as ignored.
export const ENGLISH_FILLER = new Set(
  `a an the it its this that these those them they image images picture pictures photo photos pic pics img one ones both
  all whole entire overall please kindly can could would will you me my i we us our want like need let lets make makes
  making turn turned convert change transform apply applying give set get do does be is are was look looks looking
  appear to into onto on in at of by for from with as so and or then also too plus after before finally next while
  follow follows following edit edits version effect effects style styled filter tone toned mode more much less very
  really quite bit little slightly slight somewhat lot lots greatly significantly strongly heavily lightly subtly
  dramatically extra super way increase increased decrease decreased raise raised lower lowered reduce reduced boost
  boosted enhance enhanced add added adjust adjusted higher high low up down stronger weaker strength amount level
  radius degree degrees deg percent pixel pixels px times x clockwise counterclockwise anticlockwise counter anti ccw cw
  left right top bottom upper lower middle center centre corner half quarter side sides part portion region area section
  edge edges around red orange yellow green cyan blue navy purple violet pink magenta white black gray grey gold golden
  silver brown colour color colored coloured thick thin wide narrow first second third last other text caption title
  word words label saying says reading write written keep only just crop cropped cut trim remove delete discard extract
  isolate no not don't dont never avoid without stop aspect ratio nice good great cool pretty beautiful better feel vibe
  put place placed paste insert overlay stick side sides each together row`.split(/\s+/),
);

/** Longest first, so that 一点点 goes before 一点 and 图片 before 图. */
export const CHINESE_FILLER = [
  '请',
  '帮我',
  '帮忙',
  '麻烦',
  '能不能',
  '可以',
  '一下',
  '把',
  '将',
  '给',
  '让',
  '使得',
  '使',
  '对',
  '用',
  '以',
  '作为',
  '变成',
  '变为',
  '转换成',
  '转换为',
  '转换',
  '转成',
  '转为',
  '处理成',
  '处理为',
  '处理',
  '调整为',
  '调整',
  '调成',
  '改成',
  '改为',
  '做成',
  '进行',
  '加以',
  '效果',
  '风格',
  '色调',
  '滤镜',
  '模式',
  '样式',
  '的',
  '了',
  '地',
  '得',
  '和',
  '与',
  '跟',
  '以及',
  '及',
  '并且',
  '并',
  '然后',
  '再',
  '还',
  '也',
  '同时',
  '之后',
  '后',
  '最后',
  '接着',
  '图片',
  '图像',
  '照片',
  '画面',
  '整张',
  '整个',
  '整体',
  '这张',
  '那张',
  '这个',
  '它',
  '其',
  '图',
  '张',
  '幅',
  '一张',
  '一个',
  '个',
  '两张',
  '三张',
  '所有',
  '全部',
  '都',
  '一点点',
  '一点',
  '一些',
  '稍微',
  '略微',
  '有点',
  '更加',
  '更',
  '很',
  '非常',
  '大幅',
  '明显',
  '轻微',
  '微微',
  '稍',
  '略',
  '些',
  '点',
  '角度',
  '度',
  '像素',
  '百分之',
  '倍',
  '增加',
  '提高',
  '降低',
  '减少',
  '调高',
  '调低',
  '提升',
  '增强',
  '减弱',
  '加强',
  '上调',
  '下调',
  '加大',
  '减小',
  '高',
  '低',
  '强度',
  '程度',
  '半径',
  '顺时针',
  '逆时针',
  '向左',
  '向右',
  '中间',
  '中心',
  '中央',
  '正中',
  '左',
  '右',
  '上',
  '下',
  '中',
  '边',
  '侧',
  '面',
  '方',
  '角',
  '一半',
  '半',
  '部分',
  '部',
  '颜色',
  '色',
  '红',
  '橙',
  '黄',
  '绿',
  '青',
  '蓝',
  '紫',
  '粉',
  '白',
  '黑',
  '灰',
  '金',
  '银',
  '棕',
  '褐',
  '添加',
  '加上',
  '加个',
  '加',
  '一道',
  '一圈',
  '宽',
  '粗',
  '细',
  '我',
  '你',
  '要',
  '想',
  '需要',
  '吧',
  '呢',
  '啊',
  '吗',
  '哦',
  '即可',
  '就好',
  '就行',
  '位置',
  '处',
  '在',
  '放',
  '到',
  '里',
  '内',
  '为',
  '成',
  '是',
  '裁剪',
  '裁切',
  '剪裁',
  '裁掉',
  '剪掉',
  '切掉',
  '截取',
  '保留',
  '只要',
  '只留',
  '去掉',
  '删除',
  '删掉',
  '裁',
  '剪',
  '切',
  '不要',
  '不用',
  '无需',
  '别',
  '不',
  '文字',
  '文本',
  '字样',
  '标题',
  '题字',
  '配文',
  '文案',
  '写上',
  '写',
  '标注',
  '打上',
  '字',
  '第',
  '一',
  '二',
  '两',
  '三',
  '四',
  '五',
  '六',
  '七',
  '八',
  '九',
  '十',
  '百',
  '零',
].sort((a, b) => b.length - a.length);
