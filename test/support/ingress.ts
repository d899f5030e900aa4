// Ingresses of the sizes issue 23 measured, for tests and the bench: many
// hosts, or many hosts chosen so that every one falls in one index bucket
// (what a tenant who reads the source can do), and the policy that indexes them.
import { fnv1a } from "../../shared/digest/index.js";
import { INDEX_BUCKETS, indexBucketOf, indexKey } from "../../shared/inventory/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";

export const INGRESS_KIND = "networking.k8s.io/v1/Ingress";
export const HOST_FIELD = "spec.rules[*].host";

/** `count` host names `h<i>.<domain>` whose index keys all fall in the bucket of the first, found by trying names in order. */
export function collidingHosts(count: number, domain = "tenant-a.example.com"): string[] {
  const bucketOf = (host: string) => indexBucketOf(INGRESS_KIND, HOST_FIELD, indexKey(host)!);
  const target = bucketOf(`h0.${domain}`);
  const hosts: string[] = [];
  for (let i = 0; hosts.length < count; i++) if (bucketOf(`h${i}.${domain}`) === target) hosts.push(`h${i}.${domain}`);
  return hosts;
}

/**
 * `count` host names `<prefix><i>` whose index keys all fall in one bucket:
 * long ones cheaply, as only the number after the prefix is hashed for each
 * (the bucket is fnv1a of kind, field and value key: shared/inventory/units.ts).
 */
export function collidingLongHosts(count: number, prefix: string): string[] {
  const state = fnv1a(`${INGRESS_KIND}\u0000${HOST_FIELD}\u0000${indexKey(prefix)!}`);
  const bucketOf = (i: number) => fnv1a(String(i), state) % INDEX_BUCKETS;
  const target = bucketOf(0);
  const hosts: string[] = [];
  for (let i = 0; hosts.length < count; i++) if (bucketOf(i) === target) hosts.push(`${prefix}${i}`);
  // The shortcut is the bucket's own hash, or this fails.
  for (const host of [hosts[0]!, hosts.at(-1)!]) if (indexBucketOf(INGRESS_KIND, HOST_FIELD, indexKey(host)!) !== target) throw new Error("collidingLongHosts: the index's bucket is no longer fnv1a of kind, field and value key");
  return hosts;
}

/** `count` distinct host names, spread over the buckets as hashing spreads them. */
export const spreadHosts = (count: number, domain = "tenant-a.example.com") => Array.from({ length: count }, (_, i) => `h${String(i).padStart(5, "0")}.${domain}`);

export function ingressWithHosts(namespace: string, name: string, hosts: readonly string[]): KubeObject {
  return { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name, namespace }, spec: { rules: hosts.map((host) => ({ host })) } };
}

/** The unique-host policy (examples/inventory/unique-ingress-host), bound, with the given failurePolicy. */
export function uniqueHostPolicy(failurePolicy: "Fail" | "Ignore" = "Fail"): KubeObject[] {
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: {
        name: "unique-host",
        annotations: {
          "edgeadmit.io/inventory": JSON.stringify({
            kinds: [{ apiVersion: "networking.k8s.io/v1", kind: "Ingress", fields: [HOST_FIELD], index: [HOST_FIELD] }],
            variables: { taken: "object.spec.rules.map(r, r.host).filter(h, h in inventory.index('networking.k8s.io/v1', 'Ingress', 'spec.rules[*].host'))" },
          }),
        },
      },
      spec: {
        failurePolicy,
        matchConstraints: { resourceRules: [{ apiGroups: ["networking.k8s.io"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["ingresses"] }] },
        variables: [{ name: "taken", expression: "[]" }],
        validations: [{ expression: "size(variables.taken) == 0", messageExpression: "'host ' + variables.taken[0] + ' is taken'" }],
      },
    },
    { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name: "unique-host" }, spec: { policyName: "unique-host", validationActions: ["Deny"] } },
  ];
}
