// `edgeadmit check -o sarif` against SARIF 2.1.0. No JSON-schema validator is
// among the dependencies, so the schema's requirements for what check writes
// (sarif-schema-2.1.0.json: required properties, enums, minimums, and
// additionalProperties: false) are written out with zod here.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { runCli } from "../../../test/node/support/test-io.js";

const message = z.strictObject({ text: z.string() });
const reportingDescriptor = z.strictObject({ id: z.string(), shortDescription: z.optional(message) });
const location = z.strictObject({
  physicalLocation: z.optional(
    z.strictObject({
      artifactLocation: z.strictObject({ uri: z.string().check(z.minLength(1)) }),
      region: z.optional(z.strictObject({ startLine: z.int().check(z.minimum(1)) })),
    }),
  ),
  logicalLocations: z.optional(z.array(z.strictObject({ fullyQualifiedName: z.string(), kind: z.string() }))),
});
const result = z.strictObject({
  ruleId: z.string(),
  ruleIndex: z.int().check(z.minimum(-1)),
  level: z.enum(["none", "note", "warning", "error"]),
  message,
  locations: z.array(location),
});
const sarifLog = z.strictObject({
  $schema: z.optional(z.url()),
  version: z.literal("2.1.0"),
  runs: z.array(
    z.strictObject({
      tool: z.strictObject({ driver: z.strictObject({ name: z.string(), rules: z.array(reportingDescriptor) }) }),
      results: z.array(result),
    }),
  ),
});

describe("edgeadmit check -o sarif", () => {
  it("is SARIF 2.1.0: a rule per policy, error/warning/note for Deny/Warn/Audit, each result at its file and line", async () => {
    const broken = join(mkdtempSync(join(tmpdir(), "edgeadmit-sarif-")), "broken.yaml");
    writeFileSync(broken, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: broken}\nspec: {template: 1}\n");
    const { code, stdout } = await runCli(["check", "-f", "test/fixtures/hygiene/c-name-override.yaml", "-f", "-", "-f", broken, "-n", "mq", "-o", "sarif", "--strict"], "apiVersion: v1\nkind: Pod\nmetadata: {name: lone}\n");
    expect(code).toBe(2); // --strict: the unreadable object is input that cannot be judged, and nothing is denied
    const log = sarifLog.parse(JSON.parse(stdout));
    const [run] = log.runs;
    expect(run!.tool.driver.name).toBe("edgeadmit");
    expect(run!.tool.driver.rules.map((rule) => rule.id)).toEqual([
      "affinity-class",
      "affinity-class-references",
      "affinity-class-definitions",
      "rwo-rollout",
      "rwo-shared",
      "pod-affinity-deadlock",
      "anti-affinity-drift",
      "ha-spread",
      "unreadable-object",
    ]);
    for (const each of run!.results) expect(run!.tool.driver.rules[each.ruleIndex]!.id).toBe(each.ruleId);
    expect(run!.results.map(({ ruleId, level, message: { text }, locations: [at] }) => [ruleId, level, at!.physicalLocation, at!.logicalLocations, text])).toEqual([
      [
        "anti-affinity-drift",
        "warning",
        { artifactLocation: { uri: "test/fixtures/hygiene/c-name-override.yaml" }, region: { startLine: 4 } },
        [{ fullyQualifiedName: "Deployment mq/mq-edge-relay", kind: "resource" }],
        "anti-affinity-drift: deploy/mq-edge-relay: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/name=edge-relay",
      ],
      [
        "ha-spread",
        "note",
        { artifactLocation: { uri: "test/fixtures/hygiene/c-name-override.yaml" }, region: { startLine: 4 } },
        [{ fullyQualifiedName: "Deployment mq/mq-edge-relay", kind: "resource" }],
        "ha-spread: deploy/mq-edge-relay: 2 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels",
      ],
      [
        "unreadable-object",
        "error",
        { artifactLocation: { uri: pathToFileURL(broken).href }, region: { startLine: 1 } },
        [{ fullyQualifiedName: "Deployment mq/broken", kind: "resource" }],
        "Deployment mq/broken: request.object is not a valid Deployment: spec.template: Invalid input: expected object, received number",
      ],
    ]);
  });

  it("gives an object read from stdin a logical location only: there is no file to open", async () => {
    const { stdout } = await runCli(["check", "-f", "-", "-o", "sarif"], "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {template: 1}\n");
    const log = sarifLog.parse(JSON.parse(stdout));
    expect(log.runs[0]!.results.map((each) => each.locations)).toEqual([[{ logicalLocations: [{ fullyQualifiedName: "Deployment default/web", kind: "resource" }] }]]);
  });
});
