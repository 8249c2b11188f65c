// Predicting the shape of a local edit before running it.
import { OutputSize } from '@gateway/imaging';
import { parseInstruction } from './instruction-parser';
import { fusedSize, sizeAfter } from './layout';
import { withoutUnwanted } from './negative-prompt';

/**
 * The size the local engine's edit of inputs of these sizes comes to before it is fitted to the output: a 600×400
 * input rotated by 90° gives 400×600, two 512×512 inputs side by side 1024×512. `outputGeometry(editedSize(…))`
 * gives an output of the edited picture's shape rather than the last input's (no letterboxing); whether to use it
 * is the caller's choice (docs/contracts.md names the last input).
 */
export function editedSize(inputs: OutputSize[], prompt: string, negativePrompt?: string): OutputSize {
  const plan = parseInstruction(prompt, inputs.length);
  const { steps } = withoutUnwanted(plan.steps, negativePrompt, inputs.length);
  const edited = (image: number) =>
    steps.filter((step) => step.image === image).reduce((size, step) => sizeAfter(size, step.operation), inputs[image]);
  const start = plan.fusion ? fusedSize(plan.fusion, edited) : edited(plan.subject);
  const size = steps
    .filter((step) => step.image === undefined)
    .reduce((current, step) => sizeAfter(current, step.operation), start);
  return { width: size.width, height: size.height };
}
