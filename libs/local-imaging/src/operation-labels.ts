// Short names of edits and layouts in English and Chinese, for `applied` and for the revised prompt.
import { CropRegion, EditOperation, FusionPlan, Language, Placement } from './edit-plan';

const CROP_EN: Record<CropRegion, string> = {
  left: 'left half',
  right: 'right half',
  top: 'top half',
  bottom: 'bottom half',
  center: 'center',
  'top-left': 'top-left quarter',
  'top-right': 'top-right quarter',
  'bottom-left': 'bottom-left quarter',
  'bottom-right': 'bottom-right quarter',
};
const CROP_ZH: Record<CropRegion, string> = {
  left: '左半部分',
  right: '右半部分',
  top: '上半部分',
  bottom: '下半部分',
  center: '中间部分',
  'top-left': '左上四分之一',
  'top-right': '右上四分之一',
  'bottom-left': '左下四分之一',
  'bottom-right': '右下四分之一',
};
const PLACEMENT_ZH: Record<Placement, string> = {
  'top-left': '左上角',
  'top-right': '右上角',
  'bottom-left': '左下角',
  'bottom-right': '右下角',
  center: '中央',
};
const ADJUST_ZH = { brightness: '亮度', contrast: '对比度', saturation: '饱和度' };

export function imageName(image: number, language: Language): string {
  return language === 'zh' ? `图${image + 1}` : `image ${image + 1}`;
}

export function describeOperation(operation: EditOperation, language: Language): string {
  return language === 'zh' ? chinese(operation) : english(operation);
}

function english(operation: EditOperation): string {
  switch (operation.kind) {
    case 'grayscale':
    case 'sepia':
    case 'invert':
      return operation.kind;
    case 'blur':
      return `blur ${round(operation.sigma)}px`;
    case 'sharpen':
      return 'sharpen';
    case 'adjust':
      return `${operation.property} ${signedPercent(operation.factor)}`;
    case 'rotate':
      return `rotate ${round(operation.degrees)}°`;
    case 'flip':
      return 'flip vertical';
    case 'mirror':
      return 'mirror horizontal';
    case 'crop-region':
      return `crop ${CROP_EN[operation.region]}`;
    case 'crop-aspect':
      return `crop ${operation.width}:${operation.height}`;
    case 'zoom':
      return `zoom ${Math.round(operation.factor * 100)}%`;
    case 'resize':
      return 'resize to the output size';
    case 'border':
      return `border ${operation.color.en}${operation.width ? ` ${operation.width}px` : ''}`;
    case 'text':
      return `text "${operation.text}"`;
  }
}

function chinese(operation: EditOperation): string {
  switch (operation.kind) {
    case 'grayscale':
      return '黑白';
    case 'sepia':
      return '复古（棕褐色调）';
    case 'invert':
      return '反色';
    case 'blur':
      return `模糊（${round(operation.sigma)}像素）`;
    case 'sharpen':
      return '锐化';
    case 'adjust':
      return `${ADJUST_ZH[operation.property]}${operation.factor >= 1 ? '提高' : '降低'}${Math.round(Math.abs(operation.factor - 1) * 100)}%`;
    case 'rotate':
      return `${operation.degrees < 0 ? '逆时针' : '顺时针'}旋转${round(Math.abs(operation.degrees))}°`;
    case 'flip':
      return '上下翻转';
    case 'mirror':
      return '水平镜像';
    case 'crop-region':
      return `裁剪${CROP_ZH[operation.region]}`;
    case 'crop-aspect':
      return `裁剪为${operation.width}:${operation.height}`;
    case 'zoom':
      return `缩放至${Math.round(operation.factor * 100)}%`;
    case 'resize':
      return '按输出尺寸调整大小';
    case 'border':
      return `添加${operation.color.zh}边框${operation.width ? `（${operation.width}像素）` : ''}`;
    case 'text':
      return `添加文字“${operation.text}”`;
  }
}

export function describeFusion(plan: FusionPlan, language: Language): string {
  const names = (images: number[]) =>
    images.map((image) => imageName(image, language)).join(language === 'zh' ? '、' : ', ');
  const zh = language === 'zh';
  switch (plan.kind) {
    case 'side-by-side':
      return zh ? `左右拼接（${names(plan.order)}）` : `side by side (${names(plan.order)})`;
    case 'top-bottom':
      return zh ? `上下拼接（${names(plan.order)}）` : `top and bottom (${names(plan.order)})`;
    case 'picture-in-picture':
      return zh
        ? `画中画（${imageName(plan.overlay, language)}置于${imageName(plan.base, language)}${PLACEMENT_ZH[plan.placement]}）`
        : `picture-in-picture (${imageName(plan.overlay, language)} on ${imageName(plan.base, language)}, ${plan.placement})`;
    case 'blend': {
      const parts = plan.order.map(
        (image, index) => `${imageName(image, language)} ${Math.round(plan.weights[index] * 100)}%`,
      );
      return zh ? `融合（${parts.join('，')}）` : `blend (${parts.join(', ')})`;
    }
  }
}

function signedPercent(factor: number): string {
  const percent = Math.round((factor - 1) * 100);
  return `${percent >= 0 ? '+' : ''}${percent}%`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
