// `edgeadmit context set|use|list|delete` and how a verb that signs with the
// operator key picks its endpoint and key (operator-flags.ts): flag, then
// --context, then EDGEADMIT_ENDPOINT / EDGEADMIT_OPERATOR_KEY, then the
// current context. Which source won shows in the message about its value
// (an endpoint that is no base URL, a key file that is not there), so no
// function is needed. The end-to-end run against one is in clusters.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runCli } from "../../test/node/support/test-io.js";

const dir = mkdtempSync(join(tmpdir(), "edgeadmit-context-"));
const operatorKey = join(dir, "keys", "operator.key");
let file = "";
let saved: NodeJS.ProcessEnv;
let count = 0;

beforeAll(async () => {
  expect((await runCli(["operator", "keygen", "--out", join(dir, "keys")])).code).toBe(0);
});

beforeEach(() => {
  saved = { ...process.env };
  file = join(dir, `config-${++count}`, "contexts.yaml");
  process.env.EDGEADMIT_CONTEXTS = file;
});

afterEach(() => {
  // Put back for the files after this one in the same process (vitest.config.ts: isolate false).
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

describe("context set, use, list, delete", () => {
  it("keeps named contexts in a 0600 file, each endpoint checked and key read when set, the key file's absolute path", async () => {
    expect(await runCli(["context", "list"])).toEqual({ code: 0, stdout: "", stderr: `no contexts in ${file}: edgeadmit context set NAME --endpoint URL --operator-key FILE\n` });
    expect(await runCli(["context", "set", "prod", "--endpoint", "https://edgeadmit.example.com"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "edgeadmit context set: context prod is new: give both --endpoint and --operator-key (see edgeadmit context set --help)\n",
    });
    expect((await runCli(["context", "set", "prod", "--endpoint", "https://edgeadmit.example.com/v1/demo/validate", "--operator-key", operatorKey])).stderr).toBe(
      "edgeadmit context set: --endpoint is the function's base URL, and https://edgeadmit.example.com/v1/demo/validate already holds its /v1/ route: pass --endpoint https://edgeadmit.example.com\n",
    );
    expect((await runCli(["context", "set", "prod", "--endpoint", "https://edgeadmit.example.com", "--operator-key", join(dir, "keys", "operator.pub")])).code).toBe(2);
    expect(await runCli(["context", "set", "Prod EU", "--endpoint", "https://h", "--operator-key", operatorKey])).toEqual({
      code: 2,
      stdout: "",
      stderr: `edgeadmit context set: a context name is 1-63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, not "Prod EU"\n`,
    });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(await runCli(["context", "set", "prod", "--endpoint", "https://edgeadmit.example.com", "--operator-key", "keys/operator.key"])).toEqual({
        code: 0,
        stdout: `context prod created: https://edgeadmit.example.com, operator key ${operatorKey}\n`,
        stderr: `in ${file}\n`,
      });
    } finally {
      process.chdir(cwd);
    }
    expect((await runCli(["context", "set", "local", "--endpoint", "http://127.0.0.1:8787", "--operator-key", operatorKey, "--use"])).stdout).toBe(
      `context local created: http://127.0.0.1:8787, operator key ${operatorKey}\nswitched to context local\n`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parse(readFileSync(file, "utf8"))).toEqual({
      apiVersion: "edgeadmit.io/v1alpha1",
      kind: "Contexts",
      currentContext: "local",
      contexts: [
        { name: "prod", endpoint: "https://edgeadmit.example.com", operatorKey },
        { name: "local", endpoint: "http://127.0.0.1:8787", operatorKey },
      ],
    });
    expect(await runCli(["context", "list"])).toEqual({
      code: 0,
      stdout: [
        "CURRENT   NAME    ENDPOINT                        OPERATOR KEY",
        `          prod    https://edgeadmit.example.com   ${operatorKey}`,
        `*         local   http://127.0.0.1:8787           ${operatorKey}`,
        "",
      ].join("\n"),
      stderr: `in ${file}\n`,
    });
    expect(parse((await runCli(["context", "list", "-o", "yaml"])).stdout)).toEqual(JSON.parse((await runCli(["context", "list", "-o", "json"])).stdout));

    process.env.EDGEADMIT_ENDPOINT = "https://other.example.com";
    expect(await runCli(["context", "use", "prod"])).toEqual({
      code: 0,
      stdout: "switched to context prod (https://edgeadmit.example.com)\n",
      stderr: "note: EDGEADMIT_ENDPOINT is set in this shell: it takes precedence over the current context\n",
    });
    expect(await runCli(["context", "use", "staging"])).toEqual({ code: 2, stdout: "", stderr: `edgeadmit context use: ${file} has no context staging (edgeadmit context list)\n` });
    expect((await runCli(["context", "set", "prod", "--endpoint", "https://edgeadmit-2.example.com"])).stdout).toBe(`context prod modified: https://edgeadmit-2.example.com, operator key ${operatorKey}\n`);
    expect(await runCli(["context", "delete", "prod"])).toEqual({ code: 0, stdout: "deleted context prod; no context is current now\n", stderr: "" });
    expect((parse(readFileSync(file, "utf8")) as { currentContext?: string; contexts: unknown[] })).toMatchObject({ contexts: [{ name: "local" }] });
    expect((parse(readFileSync(file, "utf8")) as { currentContext?: string }).currentContext).toBeUndefined();
  });

  it("refuses a contexts file it cannot use, naming it", async () => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "contexts: [\n");
    expect((await runCli(["context", "list"])).stderr).toMatch(new RegExp(`^edgeadmit context list: contexts file ${file.replace(/[.]/g, "\\.")} is not YAML: `));
    writeFileSync(file, "apiVersion: edgeadmit.io/v1alpha1\nkind: Contexts\ncontexts:\n- {name: a, endpoint: https://h, operatorKey: k}\n- {name: a, endpoint: https://i, operatorKey: k}\n");
    expect(await runCli(["context", "list"])).toEqual({ code: 2, stdout: "", stderr: `edgeadmit context list: contexts file ${file}: context a appears twice\n` });
    writeFileSync(file, "apiVersion: edgeadmit.io/v1alpha1\nkind: Contexts\ncurrentContext: gone\ncontexts: []\n");
    expect(await runCli(["clusters", "list"])).toEqual({ code: 2, stdout: "", stderr: `edgeadmit clusters list: the current context gone is not in ${file}: edgeadmit context use NAME (edgeadmit context list)\n` });
  });
});

describe("where a verb's endpoint and operator key come from", () => {
  const contexts = (current: string) =>
    `apiVersion: edgeadmit.io/v1alpha1\nkind: Contexts\ncurrentContext: ${current}\ncontexts:\n- {name: a, endpoint: ftp://from-a, operatorKey: a.key}\n- {name: b, endpoint: ftp://from-b, operatorKey: b.key}\n`;
  const endpointError = async (argv: string[]) => (await runCli(["clusters", "list", ...argv])).stderr;

  it("flag, then --context, then the variables, then the current context, each value on its own", async () => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, contexts("a"));
    const refused = (from: string, url: string) => `edgeadmit clusters list: ${from} must be the function's http(s):// base URL, not "${url}"\n`;
    expect(await endpointError([])).toBe(refused("current context a's endpoint", "ftp://from-a"));
    process.env.EDGEADMIT_ENDPOINT = "ftp://from-variable";
    expect(await endpointError([])).toBe(refused("EDGEADMIT_ENDPOINT", "ftp://from-variable"));
    expect(await endpointError(["--context", "b"])).toBe(refused("context b's endpoint", "ftp://from-b"));
    expect(await endpointError(["--context", "b", "--endpoint", "ftp://from-flag"])).toBe(refused("--endpoint", "ftp://from-flag"));
    // The key: relative paths in a hand-written file are the file's folder's, as kubeconfig's are.
    expect(await endpointError(["--endpoint", "http://127.0.0.1:1"])).toBe(`edgeadmit clusters list: cannot read key ${join(file, "..", "a.key")}: no such file\n`);
    process.env.EDGEADMIT_OPERATOR_KEY = join(dir, "variable.key");
    expect(await endpointError(["--endpoint", "http://127.0.0.1:1"])).toBe(`edgeadmit clusters list: cannot read key ${join(dir, "variable.key")}: no such file\n`);
    expect(await endpointError(["--endpoint", "http://127.0.0.1:1", "--context", "b"])).toBe(`edgeadmit clusters list: cannot read key ${join(file, "..", "b.key")}: no such file\n`);
  });

  it("a value no source gives: the error names the three ways to give it", async () => {
    expect(await endpointError([])).toBe(
      `edgeadmit clusters list: --endpoint is required: pass --endpoint, set EDGEADMIT_ENDPOINT, or choose a context (edgeadmit context set NAME --endpoint URL --operator-key FILE --use; none is current in ${file}) (see edgeadmit clusters list --help)\n`,
    );
    process.env.EDGEADMIT_ENDPOINT = "http://127.0.0.1:1";
    expect(await endpointError([])).toBe(
      `edgeadmit clusters list: --operator-key is required: pass --operator-key, set EDGEADMIT_OPERATOR_KEY, or choose a context (edgeadmit context set NAME --endpoint URL --operator-key FILE --use; none is current in ${file}) (see edgeadmit clusters list --help)\n`,
    );
  });
});
