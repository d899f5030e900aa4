// The project's own manifests of the patterns behind the hygiene policies
// (test/fixtures/hygiene) through POST /v1/:cluster/validate, under the
// default, recommended and strict profiles: exact responses per object.
import { describe, it } from "vitest";
import aBefore from "../fixtures/hygiene/a-before.yaml?raw";
import aAfter from "../fixtures/hygiene/a-after.yaml?raw";
import bBefore from "../fixtures/hygiene/b-before.yaml?raw";
import bAfter from "../fixtures/hygiene/b-after.yaml?raw";
import bExtra from "../fixtures/hygiene/b-extra.yaml?raw";
import cDefault from "../fixtures/hygiene/c-default.yaml?raw";
import cNameOverride from "../fixtures/hygiene/c-name-override.yaml?raw";
import dPairing from "../fixtures/hygiene/d-pairing.yaml?raw";
import crossApplication from "../fixtures/hygiene/cross-application.yaml?raw";
import onePerNode from "../fixtures/hygiene/one-per-node.yaml?raw";
import nodes from "../fixtures/hygiene/nodes.yaml?raw";
import { objectsFromYaml } from "../support/worker.js";
import { judgeManifests, type Expected, type Profile, type Verdict } from "../support/reviews.js";

interface FixtureCase {
  file: string;
  text: string;
  namespace: string;
  profiles: Partial<Record<Profile, Verdict>>;
  findings?: Record<string, Expected[]>;
}

const deadlock = (ref: string): Expected => ({ policy: "pod-affinity-deadlock", message: `${ref}: required podAffinity on shared storage-group + nodeSelector: deadlock; select the app` });
const surge = (ref: string, claim: string): Expected => ({ policy: "rwo-rollout", message: `${ref}: surge pod + RWO PVC ${claim}: Multi-Attach; use Recreate or maxSurge 0` });
const shared = (ref: string): Expected => ({ policy: "rwo-shared", message: `${ref}: RWO PVC scratch has 3 users: Multi-Attach; co-locate or use RWX` });

const CASES: FixtureCase[] = [
  {
    file: "a-before.yaml",
    text: aBefore,
    namespace: "notebooks",
    profiles: { default: "warn", recommended: "deny", strict: "deny" },
    findings: { "Deployment/notebook-ui": [deadlock("deploy/notebook-ui")], "Deployment/notebook-worker": [deadlock("deploy/notebook-worker")] },
  },
  {
    file: "a-after.yaml",
    text: aAfter,
    namespace: "notebooks",
    profiles: { default: "warn", recommended: "warn", strict: "deny" },
    findings: {
      "Deployment/notebook-ui": [shared("deploy/notebook-ui")],
      "Deployment/notebook-worker": [surge("deploy/notebook-worker", "scratch"), shared("deploy/notebook-worker")],
      "CronJob/scratch-gc": [shared("cj/scratch-gc")],
    },
  },
  {
    file: "b-before.yaml",
    text: bBefore,
    namespace: "gateway",
    profiles: { default: "warn", recommended: "warn", strict: "deny" },
    findings: { "Deployment/gateway": [surge("deploy/gateway", "session-store")] },
  },
  { file: "b-after.yaml", text: bAfter, namespace: "gateway", profiles: { default: "allow", recommended: "allow", strict: "allow" } },
  {
    file: "b-extra.yaml",
    text: bExtra,
    namespace: "storage",
    profiles: { default: "warn", recommended: "warn", strict: "deny" },
    findings: { "Deployment/blob-store": [surge("deploy/blob-store", "blobs")] },
  },
  { file: "c-default.yaml", text: cDefault, namespace: "mq", profiles: { default: "allow", recommended: "allow", strict: "allow" } },
  {
    file: "c-name-override.yaml",
    text: cNameOverride,
    namespace: "mq",
    profiles: { default: "warn", recommended: "warn", strict: "deny" },
    findings: {
      "Deployment/mq-edge-relay": [
        { policy: "anti-affinity-drift", message: "deploy/mq-edge-relay: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/name=edge-relay" },
        { policy: "ha-spread", message: "deploy/mq-edge-relay: 2 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels" },
      ],
    },
  },
  { file: "d-pairing.yaml", text: dPairing, namespace: "ingest", profiles: { default: "allow", recommended: "allow", strict: "allow" } },
  { file: "cross-application.yaml", text: crossApplication, namespace: "shop", profiles: { default: "allow", recommended: "allow", strict: "allow" } },
  { file: "one-per-node.yaml", text: onePerNode, namespace: "edge", profiles: { default: "allow", recommended: "allow", strict: "allow" } },
];

describe("the hygiene fixtures through POST /v1/:cluster/validate", () => {
  for (const fixture of CASES) {
    for (const [profile, verdict] of Object.entries(fixture.profiles) as Array<[Profile, Verdict]>) {
      it(`${fixture.file} under the ${profile} profile: ${verdict}`, () => {
        const objects = objectsFromYaml(fixture.text);
        // The sync job lists the file's claims and workloads, and the nodes.
        return judgeManifests("other", { objects, namespace: fixture.namespace, cluster: [...objects, ...objectsFromYaml(nodes)], profile, verdict, findings: fixture.findings });
      });
    }
  }
});
