// Turns an English or Simplified Chinese edit instruction into an EditPlan. The instruction is cut into clauses
// ("…, then …", "…，然后…"); each clause is searched for edit keywords, whose parameters are read from the words
// around them; what is left of a clause once keywords, parameters and filler are taken out is reported as ignored.
import { EditOperation, EditPlan, Language, PlanNote, PlannedStep } from './edit-plan';
import {
  FusionIntent,
  ImageReference,
  detectFusion,
  distinctImages,
  findImageReferences,
  planFusion,
} from './fusion-parser';
import { CHINESE_FILLER, ENGLISH_FILLER, Found, anyOf, findAll, hasHan } from './instruction-words';
import {
  MatchContext,
  OPERATION_MATCHERS,
  OperationMatcher,
  QUOTE_PLACEHOLDER,
  TEXT_WORDS,
} from './operation-matchers';

const CLAUSE_BREAK = anyOf(
  /[,，。;；!！?？\n]+|\.(?!\d)/,
  /\b(?:and\s+then|then|after\s+that|afterwards|finally)\b/,
  /然后|接着|之后再|之后|最后|并且|同时|再(?=[把将给对让使])/,
);
const QUOTED = /"([^"]*)"|“([^”]*)”|「([^」]*)」|『([^』]*)』|‘([^’]*)’/g;
const LABELLED_TEXT =
  /((?:\b(?:text|caption|title|label|words)|文字|文本|标题|字样|配文)\s*[:：]\s*)([^,，。;；\n\uE000]+)/gi;
const NEGATED = anyOf(
  /\b(?:no|not|don'?t|do\s+not|without|avoid|never|stop)\b(?:\s+[a-z]+){0,2}\s*$/,
  /(?:不要|不用|无需|无须|避免|别|勿|不)\s*(?:要|再|进行|做|加)?\s*$/,
);
/** Clauses that ask to keep things as they are: nothing to do, and nothing to report as ignored. */
const GUIDANCE = anyOf(
  /^(?:please\s+)?(?:keep|preserve|maintain|retain|ensure|make\s+sure|while|with|overall|natural|high[\s-]quality|don'?t\s+change|leave|as\s+is)\b/,
  /^(?:请)?(?:保持|保留|维持|确保|整体|画面|注意|其余|其他|不要改变|不变|原样)/,
);
/** Matchers whose repeated keywords in one clause are one request ("rotate 90 degrees clockwise"). */
const UNMERGED = new Set(['text', 'crop-region', 'crop-aspect']);

interface ClauseReading {
  /** The clause as searched: keyword positions refer to it. */
  source: string;
  /** The clause as written, quotes restored, for reports. */
  text: string;
  references: ImageReference[];
  fusion?: FusionIntent;
  operations: EditOperation[];
  /** Recognised but impossible for a whole-image editor (e.g. "blur the background"). */
  unsupported: boolean;
  leftover?: string;
}

export function parseInstruction(prompt: string, imageCount: number): EditPlan {
  const count = Math.max(1, imageCount);
  const { text, quotes } = extractQuotes(prompt);
  const language = languageOf(text.replace(QUOTE_PLACEHOLDER, ' '), prompt);
  const clauses = text
    .split(CLAUSE_BREAK)
    .map((clause) => clause?.trim())
    .filter((clause): clause is string => !!clause)
    .map((clause) => readClause(clause, quotes, count));

  const notes: PlanNote[] = [];
  const ignored: string[] = [];
  const exists = (image: number) => image < count;
  const named = distinctImages(clauses.flatMap((clause) => clause.references));
  for (const image of named.filter((image) => !exists(image))) notes.push({ kind: 'missing-image', image });
  const promptImages = named.filter(exists);

  const fusionIndex = count > 1 ? clauses.findIndex((clause) => clause.fusion) : -1;
  const fusionClause = clauses[fusionIndex] as ClauseReading | undefined;
  let fusion: EditPlan['fusion'];
  if (fusionClause?.fusion) {
    // Clauses right after the layout that only qualify it ("图2占30%", "in the top left corner") belong to it.
    let layout = fusionClause.source;
    for (const next of clauses.slice(fusionIndex + 1)) {
      if (next.operations.length > 0 || next.fusion || next.leftover) break;
      layout += ', ' + next.source;
    }
    const references = findImageReferences(layout, count).filter((reference) => exists(reference.image));
    fusion = { ...planFusion(fusionClause.fusion, layout, references, promptImages, count), explicit: true };
  }

  const steps: PlannedStep[] = [];
  for (const clause of clauses) {
    if (clause.fusion && clause !== fusionClause && clause.fusion.kind !== fusion?.kind)
      ignored.push(clause.fusion.keyword.text);
    const own = distinctImages(clause.references).filter(exists);
    const image = count > 1 && clause !== fusionClause && own.length === 1 ? own[0] : undefined;
    for (const operation of clause.operations) steps.push(image === undefined ? { operation } : { operation, image });
    if (clause.leftover) ignored.push(clause.leftover);
  }

  let subject = 0;
  if (!fusion && count > 1) {
    if (promptImages.length === 1) subject = promptImages[0];
    else {
      fusion = { kind: 'side-by-side', order: Array.from({ length: count }, (_, image) => image), explicit: false };
      notes.push({ kind: 'default-fusion' });
    }
  }
  const used = fusion ? imagesOf(fusion) : [subject];
  const unused = Array.from({ length: count }, (_, image) => image).filter((image) => !used.includes(image));
  if (unused.length > 0) notes.push({ kind: 'unused-images', images: unused });

  return {
    language,
    // Without fusion every step edits the one subject; a step aimed at an unused image has nothing to edit.
    steps: steps
      .filter((step) => step.image === undefined || used.includes(step.image))
      .map((step) => (fusion ? step : { operation: step.operation })),
    fusion,
    subject,
    ignored,
    notes,
  };
}

export function imagesOf(fusion: NonNullable<EditPlan['fusion']>): number[] {
  return fusion.kind === 'picture-in-picture' ? [fusion.base, fusion.overlay] : fusion.order;
}

/** The instruction's own words decide, not the text it asks to draw ('add text "你好"' is English). */
function languageOf(outsideQuotes: string, prompt: string): Language {
  if (hasHan(outsideQuotes)) return 'zh';
  return /[a-z]/i.test(outsideQuotes) || !hasHan(prompt) ? 'en' : 'zh';
}

/** Quoted text is set aside first so that words inside it ("add text "black and white"") are never read as edits. */
function extractQuotes(prompt: string): { text: string; quotes: string[] } {
  const quotes: string[] = [];
  const hold = (content: string) => `\uE000${quotes.push(content) - 1}\uE001`;
  const text = prompt
    .replace(QUOTED, (...groups: unknown[]) =>
      hold((groups.slice(1, 6).find((group) => typeof group === 'string') as string) ?? ''),
    )
    .replace(LABELLED_TEXT, (_match, label: string, content: string) => label + hold(content.trim()));
  return { text, quotes };
}

function readClause(held: string, quotes: string[], imageCount: number): ClauseReading {
  // Quotes in a clause that does not ask for text go back in place: 'make it "vintage"' is still an edit.
  const asksForText = TEXT_WORDS.test(held.replace(QUOTE_PLACEHOLDER, ' '));
  const clause = asksForText ? held : held.replace(QUOTE_PLACEHOLDER, (_m, index: string) => quotes[Number(index)]);
  const text = clause.replace(QUOTE_PLACEHOLDER, (_m, index: string) => `"${quotes[Number(index)]}"`);
  const references = findImageReferences(clause, imageCount);
  const fusion = detectFusion(clause, references);
  const reserved: Span[] = references.map(({ start, end }) => ({ start, end }));
  if (fusion) reserved.push(fusion.keyword);

  const keywords = findKeywords(clause, reserved);
  const boundaries = [...keywords.map((candidate) => candidate.keyword), ...(fusion ? [fusion.keyword] : [])].sort(
    (a, b) => a.start - b.start,
  );
  const operations: EditOperation[] = [];
  const consumed: Span[] = [...reserved];
  let unsupported = false;
  for (const { matcher, keyword } of keywords) {
    const index = boundaries.indexOf(keyword);
    const windowStart = index > 0 ? boundaries[index - 1].end : 0;
    const windowEnd = index < boundaries.length - 1 ? boundaries[index + 1].start : clause.length;
    const window = clause.slice(windowStart, windowEnd);
    const from = keyword.start - windowStart;
    if (NEGATED.test(window.slice(0, from))) {
      consumed.push(keyword);
      continue;
    }
    const context: MatchContext = {
      clause,
      window,
      from,
      to: keyword.end - windowStart,
      keyword,
      quotes,
      fusionClause: !!fusion,
    };
    const outcome = matcher.build(context);
    if (outcome === 'unsupported') unsupported = true;
    else if (outcome) {
      operations.push(outcome);
      consumed.push(keyword);
    }
  }

  const nothingToDo = operations.length === 0 && !fusion;
  const leftover = unsupported ? text : nothingToDo && GUIDANCE.test(text) ? undefined : unexplained(clause, consumed);
  return { source: clause, text, references, fusion, operations, unsupported, leftover };
}

interface Span {
  start: number;
  end: number;
}

interface Keyword {
  matcher: OperationMatcher;
  keyword: Found;
}

/** Every keyword of the clause, earlier matchers first where two overlap, in reading order, repeats merged. */
function findKeywords(clause: string, reserved: Span[]): Keyword[] {
  const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
  const accepted: Keyword[] = [];
  for (const matcher of OPERATION_MATCHERS) {
    for (const keyword of findAll(clause, matcher.pattern)) {
      if (
        reserved.some((span) => overlaps(span, keyword)) ||
        accepted.some((other) => overlaps(other.keyword, keyword))
      )
        continue;
      accepted.push({ matcher, keyword });
    }
  }
  accepted.sort((a, b) => a.keyword.start - b.keyword.start);
  const merged: Keyword[] = [];
  for (const candidate of accepted) {
    const previous = merged[merged.length - 1];
    if (previous && previous.matcher === candidate.matcher && !UNMERGED.has(candidate.matcher.key)) {
      const start = previous.keyword.start;
      const end = candidate.keyword.end;
      previous.keyword = { text: clause.slice(start, end), start, end, groups: previous.keyword.groups };
    } else merged.push({ ...candidate });
  }
  return merged;
}

/** What is left of a clause once its keywords are taken out, if any of it is more than filler. */
function unexplained(clause: string, consumed: Span[]): string | undefined {
  let offset = 0;
  const rest = [...clause]
    .map((char) => {
      const position = offset;
      offset += char.length;
      return consumed.some((span) => position >= span.start && position < span.end) ? ' ' : char;
    })
    .join('')
    .replace(QUOTE_PLACEHOLDER, ' ');
  const words = (rest.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? []).filter(
    (word) => word.length >= 3 && !ENGLISH_FILLER.has(word),
  );
  let han = rest.replace(/[^\p{Script=Han}]+/gu, ' ');
  for (const filler of CHINESE_FILLER) han = han.split(filler).join(' ');
  if (words.length === 0 && han.replace(/\s+/g, '').length < 2) return undefined;
  const phrase = rest
    .replace(/\s+/g, ' ')
    .replace(/^[\s,，、:：]*(?:(?:and|then|also|but)\b|和|并|然后|再|但)?[\s,，、]*/i, '')
    .replace(/[\s,，、:：]*(?:\b(?:and|then|also|but)|和|并|然后|再|但)?[\s,，、:：]*$/i, '')
    .trim();
  return phrase || undefined;
}
