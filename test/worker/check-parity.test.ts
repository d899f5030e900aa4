// `edgeadmit check` and the audit judge through shared/judge; the webhook
// through POST /v1/:cluster/validate. On every incident fixture, under every
// settings profile, both must give each object the same response: verdict,
// status, warnings and audit annotations, word for word.
import { describe, expect, it } from "vitest";
import recommendedYaml from "../../examples/profiles/recommended.yaml?raw";
import strictYaml from "../../examples/profiles/strict.yaml?raw";
import { encodeAdmissionResponse } from "../../shared/admission/index.js";
import { wrapReview } from "../../shared/admission/wrap.js";
import { describeResult } from "../../shared/review/index.js";
import { judgeObjects } from "../../shared/judge/index.js";
import { POLICIES } from "../../policies/index.js";
import { inNamespace, type Profile } from "../support/reviews.js";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";

const FIXTURES = import.meta.glob<string>("../fixtures/hygiene/*.yaml", { query: "?raw", import: "default", eager: true });
const NODES = FIXTURES["../fixtures/hygiene/nodes.yaml"]!;
const PROFILES: Record<Profile, string> = { default: "", recommended: recommendedYaml, strict: strictYaml };

describe("shared/judge gives every incident fixture the webhook's own response", () => {
  const files = Object.keys(FIXTURES).filter((path) => !path.endsWith("/nodes.yaml"));
  it("covers every fixture", () => expect(files.length).toBe(10));

  for (const path of files) {
    for (const [profile, settings] of Object.entries(PROFILES) as Array<[Profile, string]>) {
      it(`${path.slice("../fixtures/hygiene/".length)} under the ${profile} profile`, async () => {
        // As check -f FILE -f nodes.yaml -f PROFILE: the input is also the cluster facts.
        const objects = inNamespace(objectsFromYaml(FIXTURES[path]!), "parity");
        const snapshot = snapshotOf([...objects, ...objectsFromYaml(NODES), ...objectsFromYaml(settings)]);
        expect((await push("other", snapshot)).status).toBe(200);
        const judged = judgeObjects(objects, snapshot, { policies: POLICIES });
        for (const one of judged) {
          if (one.error !== undefined) throw new Error(`${one.ref.kind}/${one.ref.name}: ${one.error}`);
          const review = wrapReview(one.object);
          const { response } = await validate("other", review);
          expect(encodeAdmissionResponse(review, one.decision).response, `${one.ref.kind}/${one.ref.name}`).toEqual(response);
          // Each rendered result is in the webhook's response, where its mode puts it.
          for (const result of one.results) {
            const text = describeResult(result);
            if (result.mode === "Deny") expect(response.status?.message).toContain(text);
            if (result.mode === "Warn") expect(response.warnings).toContain(text);
            if (result.mode === "Audit") expect(response.auditAnnotations?.[result.policy]).toContain(result.message);
          }
        }
      });
    }
  }
});

const INVENTORY = import.meta.glob<string>("../../examples/inventory/*/*.yaml", { query: "?raw", import: "default", eager: true });

describe("shared/judge gives the inventory examples' objects the webhook's own response", () => {
  const examples = [...new Set(Object.keys(INVENTORY).map((path) => path.split("/").at(-2)!))];
  it("covers every example", () => expect(examples.sort()).toEqual(["hpa-target-exists", "service-selector-collision", "storage-class-exists", "unique-ingress-host"]));

  for (const example of examples) {
    const file = (name: string) => objectsFromYaml(INVENTORY[`../../examples/inventory/${example}/${name}.yaml`]!);
    it(`${example}: the new objects, and the cluster's own as UPDATEs`, async () => {
      // As check -f requests.yaml -f cluster.yaml --policies policy.yaml: the cluster and the new objects are the inventory.
      const cluster = file("cluster");
      const objects = [...file("requests"), ...cluster];
      const snapshot = snapshotOf([...file("policy"), ...objects]);
      expect((await push("other", snapshot)).status).toBe(200);
      const judged = [...judgeObjects(objects, snapshot, { policies: POLICIES }), ...judgeObjects(cluster, snapshot, { policies: POLICIES, operation: "UPDATE" })];
      expect(judged.some((one) => one.decision?.allowed === false || (one.decision?.warnings.length ?? 0) > 0), "some object is denied or warned").toBe(true);
      for (const one of judged) {
        if (one.error !== undefined) throw new Error(`${one.ref.kind}/${one.ref.name}: ${one.error}`);
        const operation = judged.indexOf(one) >= objects.length ? "UPDATE" : "CREATE";
        const review = wrapReview(one.object, { operation });
        const { response } = await validate("other", review);
        expect(encodeAdmissionResponse(review, one.decision).response, `${operation} ${one.ref.kind}/${one.ref.namespace}/${one.ref.name}`).toEqual(response);
      }
    });
  }
});
