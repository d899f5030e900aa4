// `edgeadmit completion`: the bash script is run in bash and asked what it
// completes; zsh reuses it through bashcompinit; fish gets its own lines.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test/node/support/test-io.js";

describe("edgeadmit completion", () => {
  it("bash completes verbs, the second word of a group, and a verb's flags", async () => {
    const { code, stdout } = await runCli(["completion", "bash"]);
    expect(code).toBe(0);
    const script = join(mkdtempSync(join(tmpdir(), "edgeadmit-completion-")), "edgeadmit.bash");
    writeFileSync(script, stdout);
    const ask = (line: string) =>
      promisify(execFile)("bash", ["-c", `source ${script}; read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _edgeadmit; echo "\${COMPREPLY[*]}"`, "_", line]).then((r) => r.stdout.trim());
    expect(await ask("edgeadmit sn")).toBe("snapshot");
    expect(await ask("edgeadmit snapshot b")).toBe("build");
    expect(await ask("edgeadmit snapshot build --fr")).toBe("--from-cluster");
    expect(await ask("edgeadmit check --st")).toBe("--strict");
    expect(await ask("edgeadmit test -")).toBe("-o --kubernetes-version --no-defaults --help");
    expect(await ask("edgeadmit token --allow")).toBe("--allow-unignored");
  });

  it("zsh loads the bash function through bashcompinit; fish names each verb's flags", async () => {
    const zsh = (await runCli(["completion", "zsh"])).stdout;
    expect(zsh).toContain("autoload -U +X bashcompinit && bashcompinit\n");
    expect(zsh).toContain("complete -o default -F _edgeadmit edgeadmit\n");
    const fish = (await runCli(["completion", "fish"])).stdout;
    expect(fish).toContain("complete -c edgeadmit -n '__fish_seen_subcommand_from snapshot; and not __fish_seen_subcommand_from build push' -a 'build push'\n");
    expect(fish).toContain("complete -c edgeadmit -n '__fish_seen_subcommand_from check' -s f -s n -s o -l policies");
  });

  it("names the shells it knows", async () => {
    expect(await runCli(["completion", "tcsh"])).toEqual({ code: 2, stdout: "", stderr: 'edgeadmit completion: say which shell: bash, zsh, fish, not "tcsh" (see edgeadmit completion --help)\n' });
  });
});
