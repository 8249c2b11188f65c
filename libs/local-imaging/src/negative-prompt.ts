// negative_prompt for the local engine: edits it names are not applied.
import { EditOperation, PlannedStep } from './edit-plan';
import { parseInstruction } from './instruction-parser';

/** Cancels by kind, and adjustments by direction ("darker" does not cancel "brighter"). */
export function withoutUnwanted(
  steps: PlannedStep[],
  negativePrompt: string | undefined,
  imageCount: number,
): { steps: PlannedStep[]; cancelled: PlannedStep[] } {
  const unwanted = new Set(
    negativePrompt?.trim()
      ? parseInstruction(negativePrompt, imageCount).steps.map((step) => cancelKey(step.operation))
      : [],
  );
  return {
    steps: steps.filter((step) => !unwanted.has(cancelKey(step.operation))),
    cancelled: steps.filter((step) => unwanted.has(cancelKey(step.operation))),
  };
}

function cancelKey(operation: EditOperation): string {
  return operation.kind === 'adjust' ? `${operation.property}${operation.factor >= 1 ? '+' : '-'}` : operation.kind;
}
