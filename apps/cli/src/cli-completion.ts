// `kfx completion bash|zsh`: a completion script generated from the command tree itself, so
// that it knows every subcommand, option and choice without being kept up to date by hand.
// The script is plain bash; zsh runs it through its bash-completion emulation (bashcompinit).
// It reads words without indexing arrays, because zsh and bash count from different ends.
import { Command, type Option } from 'commander';
import { CliError } from './cli-exit.js';

interface Node {
  path: string;
  subcommands: string[];
  options: readonly Option[];
}

/** Every command path with its subcommands and options (the root's options apply everywhere). */
function nodes(program: Command): Node[] {
  const out: Node[] = [];
  const visit = (command: Command, path: string) => {
    const options =
      command === program ? program.options : [...program.options, ...command.options];
    out.push({ path, subcommands: command.commands.map((c) => c.name()), options });
    for (const sub of command.commands)
      visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return out;
}

const flagsOf = (option: Option) => [option.long, option.short].filter((f): f is string => !!f);
const takesValue = (option: Option) => option.required || option.optional;
const quote = (text: string) => `"${text.replace(/["\\$`]/g, '\\$&')}"`;

function cases(entries: [string, string][], fallback = ''): string {
  const lines = entries.map(([key, words]) => `    ${quote(key)}) echo ${quote(words)} ;;`);
  return `  case "$1" in\n${lines.join('\n')}\n    *) echo ${quote(fallback)} ;;\n  esac`;
}

export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const name = program.name();
  const fn = `_${name.replace(/\W/g, '_')}_completion`;
  const tree = nodes(program);
  const withHelp = (node: Node) => [...node.options.flatMap(flagsOf), '--help'];
  const valueOptions = (node: Node) => node.options.filter(takesValue).flatMap(flagsOf);
  const choices = tree.flatMap((node) =>
    node.options
      .filter((o) => o.argChoices)
      .flatMap((o) =>
        flagsOf(o).map((f): [string, string] => [
          `${node.path}|${f}`,
          (o.argChoices ?? []).join(' '),
        ]),
      ),
  );
  const body = `# ${name} completion for ${shell}. Load it with: source <(${name} completion ${shell})
${fn}_subcommands() {
${cases(tree.map((n) => [n.path, n.subcommands.join(' ')]))}
}
${fn}_options() {
${cases(tree.map((n) => [n.path, withHelp(n).join(' ')]))}
}
${fn}_value_options() {
${cases(tree.map((n) => [n.path, valueOptions(n).join(' ')]))}
}
${fn}_choices() {
${cases(choices)}
}
${fn}() {
  local cur="$2" prev="$3" path="" word n=0 skip=0
  for word in "\${COMP_WORDS[@]}"; do
    n=$((n + 1))
    [ "$n" -eq 1 ] && continue
    [ "$n" -gt "$COMP_CWORD" ] && break
    if [ "$skip" -eq 1 ]; then skip=0; continue; fi
    case "$word" in
      -*) case " $(${fn}_value_options "$path") " in *" $word "*) skip=1 ;; esac; continue ;;
    esac
    case " $(${fn}_subcommands "$path") " in
      *" $word "*) path="\${path:+$path }$word" ;;
    esac
  done
  case " $(${fn}_value_options "$path") " in
    *" $prev "*)
      local values
      values="$(${fn}_choices "$path|$prev")"
      if [ -n "$values" ]; then COMPREPLY=($(compgen -W "$values" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
      return 0 ;;
  esac
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$(${fn}_options "$path")" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$(${fn}_subcommands "$path")" -- "$cur")) ;;
  esac
}
complete -F ${fn} ${name}
`;
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${body}` : body;
}

export function completionCommand(): Command {
  return new Command('completion')
    .argument('<shell>', 'bash or zsh')
    .addHelpText(
      'after',
      `
Examples:
  $ source <(kfx completion bash)                      # this shell only
  $ kfx completion bash > /etc/bash_completion.d/kfx   # every bash
  $ echo 'source <(kfx completion zsh)' >> ~/.zshrc    # zsh, after compinit`,
    )
    .action(function (this: Command, shell: string) {
      if (shell !== 'bash' && shell !== 'zsh') {
        throw new CliError(`completion: "${shell}" is not a supported shell (bash, zsh)`);
      }
      process.stdout.write(completionScript(rootOf(this), shell));
    });
}

function rootOf(command: Command): Command {
  return command.parent ? rootOf(command.parent) : command;
}
