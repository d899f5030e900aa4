import { describe, expect, it } from "vitest";
import { InvalidObjectError } from "../workload/index.js";
import { podRequests } from "./index.js";

const requests = (podSpec: Record<string, unknown>) =>
  Object.fromEntries([...podRequests({ kind: "Deployment", podSpecPath: "spec.template.spec", podSpec })].map(([resource, q]) => [resource, q.toString()]));
const container = (requests?: Record<string, string | number>, limits?: Record<string, string | number>, restartPolicy?: string) => ({
  name: "c",
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
  ...(restartPolicy ? { restartPolicy } : {}),
});

describe("podRequests", () => {
  it("adds the containers' requests, exactly", () => {
    expect(requests({ containers: [container({ cpu: "100m", memory: "1Gi" }), container({ cpu: "1.9", memory: "512Mi" })] })).toEqual({ cpu: "2", memory: "1536Mi" });
  });

  it("reads numbers as the apiserver reads them (Quantity.UnmarshalJSON parses the text Go prints: 1e9 is 1000000000, 1e21 stays 1e+21)", () => {
    expect(requests({ containers: [container({ cpu: 1, memory: 1e9, "google.com/tpu": 8 }), container({ cpu: 0.5 }, { "nvidia.com/gpu": 2 })], overhead: { cpu: 0.25 } })).toEqual({
      cpu: "1750m",
      memory: "1G",
      "google.com/tpu": "8",
      "nvidia.com/gpu": "2",
    });
    expect(requests({ containers: [container({ memory: 1e21, cpu: 1e-7 })] })).toEqual({ memory: "1e21", cpu: "100e-9" });
  });

  it("takes a container's limit as its request when it sets no request (SetDefaults_Pod)", () => {
    expect(requests({ containers: [container(undefined, { "nvidia.com/gpu": "1" }), container({ cpu: "1" }, { cpu: "2" })] })).toEqual({ "nvidia.com/gpu": "1", cpu: "1" });
    expect(requests({ containers: [container({ cpu: "1", memory: "1Gi" }, { cpu: "2", "nvidia.com/gpu": "1" })] })).toEqual({ cpu: "1", "nvidia.com/gpu": "1", memory: "1Gi" });
  });

  it("adds sidecars and takes the peak of an init container beside the sidecars started before it", () => {
    const spec = {
      initContainers: [container({ cpu: "1" }, undefined, "Always"), container({ cpu: "3", memory: "4Gi" }), container({ cpu: "500m" }, undefined, "Always")],
      containers: [container({ cpu: "1", memory: "1Gi" })],
    };
    // Running: 1 + 0.5 (sidecars) + 1 = 2.5 cpu; the second init container needs 3 + 1 (the first sidecar) = 4.
    expect(requests(spec)).toEqual({ cpu: "4", memory: "4Gi" });
  });

  it("lets pod-level requests replace the sum for cpu, memory and hugepages, and adds the overhead", () => {
    const spec = { containers: [container({ cpu: "1", memory: "1Gi", "nvidia.com/gpu": "1" })], resources: { requests: { cpu: "3", "nvidia.com/gpu": "5" } }, overhead: { cpu: "250m" } };
    expect(requests(spec)).toEqual({ cpu: "3250m", memory: "1Gi", "nvidia.com/gpu": "1" });
  });

  it("stops sums at 10^30, so a request of a million digits costs no more than reading it", () => {
    const huge = "9".repeat(1_000_000);
    expect(requests({ containers: [container({ "nvidia.com/gpu": huge }), ...Array.from({ length: 1_000 }, () => container({ "nvidia.com/gpu": "1" }))] })).toEqual({ "nvidia.com/gpu": "1e30" });
  });

  it("answers a value that is not a quantity as an invalid object, naming where", () => {
    expect(() => requests({ containers: [container({ cpu: "lots" })] })).toThrow(InvalidObjectError);
    expect(() => requests({ containers: [container({ cpu: "lots" })] })).toThrow("spec.template.spec.containers[0].resources: quantities must match");
    expect(() => requests({ initContainers: [container({ cpu: "1" }), container(undefined, { cpu: "1Zi" })] })).toThrow("spec.template.spec.initContainers[1].resources: quantities must match");
    expect(() => requests({ resources: { requests: { "example.com/x": "x" } } })).toThrow("spec.template.spec.resources: ");
    expect(() => requests({ containers: [container({ cpu: "1" })], overhead: { cpu: "abc" } })).toThrow("spec.template.spec.overhead: ");
  });
});
