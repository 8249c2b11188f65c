export { LocalEditEngine } from './local-edit-engine';
export type { LocalEditRequest, LocalEditResult } from './local-edit-engine';
export { extendPrompt } from './prompt-extend';
export { editedSize } from './edited-size';
export { mulberry32 } from './seeded-random';
