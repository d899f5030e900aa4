// `edgeadmit completion bash|zsh|fish`: shell completion of the verbs and
// their flags, made from the verbs themselves (their names and the flags
// their usage names), so a new verb or flag completes without editing here.
import { parseVerbArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import type { Verb } from "./verb.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

interface Completions {
  /** Each verb's words (one or two) and its flags. */
  verbs: Array<{ words: string[]; flags: string[] }>;
  /** First words, and the second words of each two-word group. */
  first: string[];
  groups: Map<string, string[]>;
}

/** The flags a verb's usage names: `--long`, and `-x` short ones in its synopsis lines (before the first blank line). */
function flagsOf(verb: Verb): string[] {
  const long = verb.usage.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [];
  const short = verb.usage.split("\n\n")[0]!.match(/(?<![\w-])-[a-zA-Z](?![\w-])/g) ?? [];
  return [...new Set([...short, ...long, "--help"])];
}

function completionsOf(verbs: readonly Verb[]): Completions {
  const groups = new Map<string, string[]>();
  const first: string[] = [];
  const all = verbs.map((verb) => ({ words: verb.name.split(" "), flags: flagsOf(verb) }));
  for (const { words } of all) {
    if (!first.includes(words[0]!)) first.push(words[0]!);
    if (words.length === 2) groups.set(words[0]!, [...(groups.get(words[0]!) ?? []), words[1]!]);
  }
  return { verbs: all, first: [...first, "--help", "--version"], groups };
}

function bash({ verbs, first, groups }: Completions): string {
  // Longest prefixes first: "snapshot build " before "snapshot ".
  const cases = [
    ...verbs.filter((verb) => verb.words.length === 2).map((verb) => [verb.words.join(" "), verb.flags] as const),
    ...[...groups].map(([group, seconds]) => [group, seconds] as const),
    ...verbs.filter((verb) => verb.words.length === 1).map((verb) => [verb.words[0]!, verb.flags] as const),
  ];
  return `# edgeadmit completion for bash: source <(edgeadmit completion bash)
_edgeadmit() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" line=" \${COMP_WORDS[*]:1:COMP_CWORD-1} " words
  case "$line" in
${cases.map(([prefix, words]) => `    " ${prefix} "*) words="${words.join(" ")}" ;;`).join("\n")}
    *) words="${first.join(" ")}" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _edgeadmit edgeadmit
`;
}

function zsh(completions: Completions): string {
  return `# edgeadmit completion for zsh: source <(edgeadmit completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(completions).split("\n").slice(1).join("\n")}`;
}

function fish({ verbs, first, groups }: Completions): string {
  const lines = ["# edgeadmit completion for fish: edgeadmit completion fish | source", "complete -c edgeadmit -f"];
  lines.push(`complete -c edgeadmit -n __fish_use_subcommand -a '${first.filter((word) => !word.startsWith("-")).join(" ")}'`);
  for (const [group, seconds] of groups) lines.push(`complete -c edgeadmit -n '__fish_seen_subcommand_from ${group}; and not __fish_seen_subcommand_from ${seconds.join(" ")}' -a '${seconds.join(" ")}'`);
  for (const { words, flags } of verbs) {
    const when = words.map((word) => `__fish_seen_subcommand_from ${word}`).join("; and ");
    const options = flags.map((flag) => (flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`)).join(" ");
    lines.push(`complete -c edgeadmit -n '${when}' ${options} -F`);
  }
  return `${lines.join("\n")}\n`;
}

const SCRIPTS = { bash, zsh, fish } as const;

/** The completion verb, over the verbs `all` returns (main's list, this verb included). */
export function completionVerb(all: () => readonly Verb[]): Verb {
  return {
    name: "completion",
    summary: "print the shell completion script for bash, zsh or fish",
    usage: `edgeadmit completion bash|zsh|fish

Prints a script that completes edgeadmit's verbs and their flags (files
otherwise). Load it in the shell's startup file.

Examples:
  edgeadmit completion bash > /etc/bash_completion.d/edgeadmit    # or: source <(edgeadmit completion bash)
  source <(edgeadmit completion zsh)                               # in ~/.zshrc
  edgeadmit completion fish > ~/.config/fish/completions/edgeadmit.fish`,
    async run(argv, io) {
      const args = parseVerbArgs("completion", argv, {}, 1);
      if (args.help) {
        io.out(`${this.usage}\n`);
        return 0;
      }
      const shell = args.positionals[0];
      if (shell === undefined || !(SHELLS as readonly string[]).includes(shell))
        throw new CliError(`say which shell: ${SHELLS.join(", ")}${shell === undefined ? "" : `, not "${shell}"`} (see edgeadmit completion --help)`, EXIT_USAGE);
      io.out(SCRIPTS[shell as (typeof SHELLS)[number]](completionsOf(all())));
      return 0;
    },
  };
}
