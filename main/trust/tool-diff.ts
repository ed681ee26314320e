// The old and new definition of a tool as a unified diff (the `diff` package, STYLE.md), shown
// on the review card and by `gatehouse trust diff`.
import { createTwoFilesPatch } from 'diff';
import { definitionText, type ToolDefinition } from './tool-definition';

export function definitionDiff(name: string, before: ToolDefinition | undefined, after: ToolDefinition | undefined): string {
  return createTwoFilesPatch(`${name} (approved)`, `${name} (now)`, definitionText(before), definitionText(after), undefined, undefined, { context: 3 });
}
