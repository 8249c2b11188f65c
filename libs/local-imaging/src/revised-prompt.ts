// The revised prompt of a local edit: what was understood and applied, and what could not be acted on, in the
// language of the instruction.
import { OutputSize } from '@gateway/imaging';
import { Language, PlanNote } from './edit-plan';
import { imageName } from './operation-labels';
import { FitMode } from './output-fit';

export interface EditReport {
  language: Language;
  /** Labels in the report's language, in the order they were applied. */
  applied: string[];
  ignored: string[];
  notes: PlanNote[];
  negativePrompt?: string;
  cancelled: string[];
  output: OutputSize;
  fit: FitMode;
}

export function revisedPrompt(report: EditReport): string {
  return (report.language === 'zh' ? chinese(report) : english(report)).join(report.language === 'zh' ? '' : ' ');
}

function english(report: EditReport): string[] {
  const size = `${report.output.width}×${report.output.height}`;
  const lines = [
    report.applied.length > 0
      ? `Applied: ${report.applied.join('; ')}.`
      : `No supported edit was found; the input was fitted to ${size}.`,
  ];
  for (const note of report.notes) {
    if (note.kind === 'default-fusion')
      lines.push('Several images and no layout named: placed side by side in request order.');
    if (note.kind === 'unused-images')
      lines.push(`Not used: ${note.images.map((image) => imageName(image, 'en')).join(', ')}.`);
    if (note.kind === 'missing-image')
      lines.push(`${capitalise(imageName(note.image, 'en'))} was named but not provided.`);
  }
  if (report.ignored.length > 0)
    lines.push(
      `Not applied (the local editor cannot do this): ${report.ignored.map((phrase) => `"${phrase}"`).join('; ')}.`,
    );
  if (report.negativePrompt) {
    const cancelled = report.cancelled.length > 0 ? `; cancelled: ${report.cancelled.join('; ')}` : '';
    lines.push(`Negative prompt noted: "${report.negativePrompt}"${cancelled}.`);
  }
  if (report.fit === 'contain')
    lines.push(`The edited picture keeps its shape inside the ${size} output, over a blurred backdrop.`);
  return lines;
}

function chinese(report: EditReport): string[] {
  const size = `${report.output.width}×${report.output.height}`;
  const lines = [
    report.applied.length > 0
      ? `已执行：${report.applied.join('；')}。`
      : `未识别到可执行的编辑，已将原图适配为${size}。`,
  ];
  for (const note of report.notes) {
    if (note.kind === 'default-fusion') lines.push('提供了多张图片但未指定组合方式，已按顺序左右拼接。');
    if (note.kind === 'unused-images')
      lines.push(`未使用：${note.images.map((image) => imageName(image, 'zh')).join('、')}。`);
    if (note.kind === 'missing-image') lines.push(`指令提到了${imageName(note.image, 'zh')}，但请求中没有该图片。`);
  }
  if (report.ignored.length > 0)
    lines.push(`无法执行（本地编辑器不支持）：${report.ignored.map((phrase) => `“${phrase}”`).join('；')}。`);
  if (report.negativePrompt) {
    const cancelled = report.cancelled.length > 0 ? `，已取消：${report.cancelled.join('；')}` : '';
    lines.push(`已参考反向提示词：“${report.negativePrompt}”${cancelled}。`);
  }
  if (report.fit === 'contain') lines.push(`编辑结果按原比例完整置于${size}画面中，空白处以模糊背景填充。`);
  return lines;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
