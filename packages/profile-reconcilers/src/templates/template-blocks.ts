// The lines of a template file, with the control tags that choose and repeat them: a line that
// holds only `{{ if <condition> }}`, `{{ else }}`, `{{ for <name> in <list> }}` or `{{ end }}`
// opens or closes a block and is itself dropped. Expanding the blocks for a Profile picks
// branches and repeats loop bodies; the holes stay inert placeholders (filled in after the YAML
// is parsed, see template-file.ts), so no value can change the YAML's structure.
import { evaluate, listItems } from './evaluate.js';
import { ExpressionError, parseControl, type Condition, type Expression } from './expression.js';
import { withLoop, type Env, type ListItem, type Scope, type TemplateValues } from './scope.js';
import { TemplateError } from './template-error.js';
import { compileText, type CompiledText } from './template-text.js';

export type Block =
  | { kind: 'text'; text: CompiledText; line: number }
  | { kind: 'if'; condition: Condition; then: Block[]; else: Block[]; line: number }
  | { kind: 'for'; variable: string; list: string; body: Block[]; line: number };

const CONTROL_LINE = /^\s*\{\{([^{}]*)\}\}\s*$/;

interface Open {
  block: Extract<Block, { kind: 'if' | 'for' }>;
  /** Where lines go now: the `then` or `else` of an if, the body of a for. */
  into: Block[];
  scope: Scope;
  word: 'if' | 'for';
}

export function compileBlocks(content: string, where: string, scope: Scope): Block[] {
  const root: Block[] = [];
  const stack: Open[] = [];
  const lines = content.split(/(?<=\n)/);
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    const top = stack.at(-1);
    const into = top?.into ?? root;
    const inScope = top?.scope ?? scope;
    const fail = (message: string) => new TemplateError(`${where}, line ${number}: ${message}`);
    const tag = CONTROL_LINE.exec(line)?.[1];
    let control;
    try {
      control = tag === undefined ? undefined : parseControl(tag, inScope);
    } catch (error) {
      if (error instanceof ExpressionError) throw fail(error.message);
      throw error;
    }
    if (control === undefined) {
      into.push({ kind: 'text', text: compileText(line, where, inScope, number), line: number });
    } else if (control.kind === 'if') {
      const block = { kind: 'if' as const, condition: control.condition, then: [], else: [] };
      const open = { ...block, line: number };
      into.push(open);
      stack.push({ block: open, into: open.then, scope: inScope, word: 'if' });
    } else if (control.kind === 'for') {
      const open = {
        kind: 'for' as const,
        variable: control.variable,
        list: control.list,
        body: [],
        line: number,
      };
      into.push(open);
      const bodyScope = withLoop(inScope, control.variable, control.shape);
      stack.push({ block: open, into: open.body, scope: bodyScope, word: 'for' });
    } else if (control.kind === 'else') {
      if (top?.block.kind !== 'if' || top.into === top.block.else) {
        throw fail('{{ else }} without an open {{ if }}');
      }
      top.into = top.block.else;
    } else {
      if (!top) throw fail('{{ end }} without an open {{ if }} or {{ for }}');
      stack.pop();
    }
  }
  const unclosed = stack.at(-1);
  if (unclosed) {
    throw new TemplateError(
      `${where}, line ${unclosed.block.line}: {{ ${unclosed.word} … }} is never closed with {{ end }}`,
    );
  }
  return root;
}

export function hasControl(blocks: readonly Block[]): boolean {
  return blocks.some((block) => block.kind !== 'text');
}

/** The text of one expansion, its holes in order, and the source line of each of its lines. */
export interface Expansion {
  text: string;
  holes: { expression: Expression; env: Env }[];
  /** 1-based source line of each line of `text`. */
  lines: number[];
}

/** How branches and loops are chosen: for a Profile, or the two shapes checked at load time. */
export interface Chooser {
  branch(condition: Condition, env: Env): boolean;
  items(list: string, variable: string): readonly ListItem[];
}

export function forProfile(values: TemplateValues): Chooser {
  return {
    branch: (condition, env) => evaluate(condition, values, env),
    items: (list) => listItems(list, values),
  };
}

/** Every `if` true and every loop once; or every `if` false and every loop empty. */
export const EVERY_BRANCH: Chooser = { branch: () => true, items: () => [''] };
export const NO_BRANCH: Chooser = { branch: () => false, items: () => [] };

export function expand(
  blocks: readonly Block[],
  placeholder: (index: number) => string,
  chooser: Chooser,
): Expansion {
  const out: Expansion = { text: '', holes: [], lines: [] };
  const walk = (list: readonly Block[], env: Env) => {
    for (const block of list) {
      if (block.kind === 'text') {
        for (const part of block.text.parts) {
          if (typeof part === 'string') {
            out.text += part;
          } else {
            out.text += placeholder(out.holes.length);
            out.holes.push({ expression: part, env });
          }
        }
        out.lines.push(block.line);
      } else if (block.kind === 'if') {
        walk(chooser.branch(block.condition, env) ? block.then : block.else, env);
      } else {
        for (const item of chooser.items(block.list, block.variable)) {
          walk(block.body, new Map([...env, [block.variable, item]]));
        }
      }
    }
  };
  walk(blocks, new Map());
  return out;
}
