// Rule-based prompt_extend: a short instruction becomes a fuller sentence in the same language. The user's own
// words are kept verbatim inside it, so the engine finds exactly the same edits in the extended prompt.
import { EditOperation, Language } from './edit-plan';
import { parseInstruction } from './instruction-parser';

/** Edits named by a noun ("黑白", "sepia") read best as "convert to … effect"; the rest are verbs ("旋转90度"). */
const LOOKS = new Set<EditOperation['kind']>(['grayscale', 'sepia', 'invert']);
const SPARSE_CHINESE = 8;
const SPARSE_ENGLISH_WORDS = 4;

const SUFFIX: Record<Language, string> = {
  zh: '保持主体构图与细节清晰，整体画面自然',
  en: 'Keep the subject and composition intact with fine details and a natural overall look.',
};

/**
 * Rewrites a short or sparse instruction into a fuller one, keeping its language and every edit keyword, e.g.
 * "黑白" → "将图片转换为黑白效果，保持主体构图与细节清晰，整体画面自然". Deterministic: no randomness, no model.
 */
export function extendPrompt(prompt: string, imageCount: number): string {
  const core = prompt.trim().replace(/[\s,，。.;；!！?？、]+$/u, '');
  if (core === '') return SUFFIX.en;

  const plan = parseInstruction(core, imageCount);
  const { language } = plan;
  const subject = subjectOf(imageCount, language);
  const sparse =
    language === 'zh'
      ? [...core.replace(/[^\p{L}\p{N}]/gu, '')].length <= SPARSE_CHINESE
      : core.split(/\s+/).length <= SPARSE_ENGLISH_WORDS;
  const plain =
    sparse &&
    plan.steps.length > 0 &&
    plan.ignored.length === 0 &&
    !plan.fusion?.explicit &&
    !/图|image|picture|photo/i.test(core);
  const look = plain && LOOKS.has(plan.steps[0].operation.kind);

  if (language === 'zh') {
    const body = !plain ? core : look ? `将${subject}转换为${core}效果` : `将${subject}${core}`;
    return `${body}，${SUFFIX.zh}。`;
  }
  const body = !plain
    ? capitalise(core)
    : look
      ? `Apply the ${core} effect to ${subject}`
      : `Edit ${subject} as follows: ${core}`;
  return `${body}. ${SUFFIX.en}`;
}

function subjectOf(imageCount: number, language: Language): string {
  if (imageCount <= 1) return language === 'zh' ? '图片' : 'the image';
  const name = (index: number) => (language === 'zh' ? `图${index + 1}` : `image ${index + 1}`);
  const names = Array.from({ length: imageCount - 1 }, (_, index) => name(index));
  const last = name(imageCount - 1);
  return language === 'zh' ? `${names.join('、')}和${last}` : `${names.join(', ')} and ${last}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
