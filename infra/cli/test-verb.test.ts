// `edgeadmit test`: the shipped suites pass; a broken expectation fails with
// the difference; a malformed suite is exit 2 naming its file, line and field.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test/node/support/test-io.js";

const FIXTURES = resolve("test/fixtures/hygiene");

function suiteFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "edgeadmit-suite-")), "edgeadmit-test.yaml");
  writeFileSync(file, text);
  return file;
}

describe("edgeadmit test", () => {
  it("passes every suite shipped in test/suites", async () => {
    const { code, stdout, stderr } = await runCli(["test", "test/suites"]);
    expect({ code, stderr, failures: stdout.split("\n").filter((line) => line.includes("FAIL")) }).toEqual({ code: 0, stderr: "", failures: [] });
    expect(stdout.endsWith("\n9 suites, 25 expectations: 25 passed, 0 failed\n")).toBe(true);
  });

  it("passes every suite of the inventory examples (examples/inventory)", async () => {
    const { code, stdout, stderr } = await runCli(["test", "examples/inventory"]);
    expect({ code, stderr, failures: stdout.split("\n").filter((line) => line.includes("FAIL")) }).toEqual({ code: 0, stderr: "", failures: [] });
    expect(stdout.endsWith("\n6 suites, 20 expectations: 20 passed, 0 failed\n")).toBe(true);
  });

  it("fails a broken expectation with the difference spelled out, and exits 1", async () => {
    const file = suiteFile(`apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionTest
metadata: {name: "incident B, expected wrongly"}
namespace: gateway
resources: [${FIXTURES}/b-before.yaml]
expect:
- {object: Deployment/gateway, policy: rwo-rollout, result: deny}
- {object: Deployment/gateway, policy: rwo-rollout, result: warn, message: maxSurge 1}
- {object: Deployment/gateway, policy: rwo-rollout, result: pass}
- {object: Deployment/gateway, policy: ha-spread, result: pass}
- {object: Deployment/other/gateway, policy: rwo-rollout, result: warn}
- {object: Deployment/gateway, policy: rwo-rolout, result: pass}
`);
    const got = "warn: rwo-rollout: deploy/gateway: surge pod + RWO PVC session-store: Multi-Attach; use Recreate or maxSurge 0";
    expect(await runCli(["test", file])).toEqual({
      code: 1,
      stdout: [
        `${file}: incident B, expected wrongly`,
        "  FAIL  Deployment/gateway  rwo-rollout  deny",
        `        expected deny, got ${got}`,
        "  FAIL  Deployment/gateway  rwo-rollout  warn",
        `        expected a message containing "maxSurge 1", got ${got}`,
        "  FAIL  Deployment/gateway  rwo-rollout  pass",
        `        expected pass, got ${got}`,
        "  PASS  Deployment/gateway  ha-spread  pass",
        "  FAIL  Deployment/other/gateway  rwo-rollout  warn",
        "        no object Deployment/other/gateway among the resources",
        // A pass for a policy that does not exist would pass forever.
        "  FAIL  Deployment/gateway  rwo-rolout  pass",
        "        no policy rwo-rolout: the built-in policies and the suite's bound ValidatingAdmissionPolicies are affinity-class, affinity-class-references, affinity-class-definitions, rwo-rollout, rwo-shared, pod-affinity-deadlock, anti-affinity-drift, ha-spread",
        "",
        "1 suite, 6 expectations: 1 passed, 5 failed",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("exits 2 with one line naming file, line and field when a suite cannot be read", async () => {
    const file = suiteFile(`apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionTest
metadata: {name: fine}
resources: [${FIXTURES}/b-before.yaml]
expect: [{object: Deployment/gateway, policy: rwo-rollout, result: warn}]
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionTest
metadata: {name: typo}
resources: [${FIXTURES}/b-before.yaml]
expect: [{object: gateway, policy: rwo-rollout, result: denied}]
`);
    expect(await runCli(["test", file])).toEqual({
      code: 2,
      stdout: "",
      stderr: `edgeadmit test: ${file}:7: not an EdgeAdmissionTest: expect.0.object: must be Kind/name or Kind/namespace/name; expect.0.result: Invalid option: expected one of "pass"|"deny"|"warn"|"audit"\n`,
    });
    const missing = suiteFile(`apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionTest
metadata: {name: missing resources}
resources: [nowhere.yaml]
expect: [{object: Deployment/gateway, policy: rwo-rollout, result: warn}]
`);
    expect(await runCli(["test", missing])).toEqual({ code: 2, stdout: "", stderr: `edgeadmit test: ${missing}: missing resources: cannot read ${join(missing, "..", "nowhere.yaml")}: no such file\n` });
    expect(await runCli(["test", "nowhere"])).toEqual({ code: 2, stdout: "", stderr: "edgeadmit test: cannot read nowhere: no such file\n" });
    expect(await runCli(["test"])).toEqual({ code: 2, stdout: "", stderr: "edgeadmit test: PATH is required (see edgeadmit test --help)\n" });
  });
});

describe("edgeadmit test -o json|yaml|junit", () => {
  const file = suiteFile(`apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionTest
metadata: {name: "incident B <strict>"}
namespace: gateway
resources: [${FIXTURES}/b-before.yaml]
expect:
- {object: Deployment/gateway, policy: rwo-rollout, result: warn}
- {object: Deployment/gateway, policy: rwo-rollout, result: pass}
`);
  const difference = "expected pass, got warn: rwo-rollout: deploy/gateway: surge pod + RWO PVC session-store: Multi-Attach; use Recreate or maxSurge 0";

  it("json: every expectation with passed and the difference; exit 1 as in text", async () => {
    const { code, stdout } = await runCli(["test", file, "-o", "json"]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual({
      apiVersion: "edgeadmit.io/v1alpha1",
      kind: "TestReport",
      summary: { suites: 1, expectations: 2, passed: 1, failed: 1 },
      suites: [
        {
          file,
          name: "incident B <strict>",
          expectations: [
            { object: "Deployment/gateway", policy: "rwo-rollout", result: "warn", passed: true },
            { object: "Deployment/gateway", policy: "rwo-rollout", result: "pass", passed: false, difference },
          ],
        },
      ],
    });
    const yaml = await runCli(["test", file, "-o", "yaml"]);
    expect([yaml.code, parse(yaml.stdout)]).toEqual([1, JSON.parse(stdout)]);
  });

  it("junit: a testsuite per suite, a testcase per expectation, the difference as the failure, XML escaped", async () => {
    expect(await runCli(["test", file, "-o", "junit"])).toEqual({
      code: 1,
      stderr: "",
      stdout: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="edgeadmit test" tests="2" failures="1">
  <testsuite name="incident B &lt;strict&gt;" tests="2" failures="1">
    <testcase classname="${file}" name="Deployment/gateway rwo-rollout warn"/>
    <testcase classname="${file}" name="Deployment/gateway rwo-rollout pass">
      <failure message="${difference}"/>
    </testcase>
  </testsuite>
</testsuites>
`,
    });
    expect((await runCli(["test", file, "-o", "tap"])).stderr).toBe('edgeadmit test: --output must be one of text, json, yaml, junit, not "tap"\n');
  });
});
