import { describe, expect, it } from "vitest";
import type { AdmissionRequest } from "../../admission/index.js";
import { matchResourcesSchema } from "../schema/index.js";
import { MatchCriteria, matchResources, RequestMatcher, prepareMatch } from "./index.js";

const request = (resource: string, subResource = "", extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  uid: "u",
  kind: { group: "", version: "v1", kind: "Pod" },
  resource: { group: "", version: "v1", resource },
  ...(subResource ? { subResource } : {}),
  namespace: "shop",
  name: "web",
  operation: "UPDATE",
  object: { metadata: { labels: { app: "web" } } },
  ...extra,
});

const criteria = (spec: unknown) => matchResourcesSchema.parse(spec);
const rules = (resources: string[], more: Record<string, unknown> = {}) =>
  criteria({ resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources, ...more }] });
const matches = (spec: ReturnType<typeof criteria>, req: AdmissionRequest) => matchResources(spec, req, () => undefined).matches;

describe("a rule's resources", () => {
  // rules.Matcher's resource table: an entry without a slash names no subresource; "/*" every one.
  const table: Array<[string, string, string, boolean]> = [
    ["pods", "pods", "", true],
    ["pods", "pods", "status", false],
    ["pods/", "pods", "", true],
    ["pods/*", "pods", "", true],
    ["pods/*", "pods", "status", true],
    ["pods/status", "pods", "status", true],
    ["pods/status", "pods", "", false],
    ["pods/status", "pods", "log", false],
    ["*", "secrets", "", true],
    ["*", "pods", "status", false],
    ["*/status", "pods", "status", true],
    ["*/status", "pods", "", false],
    ["*/*", "pods", "", true],
    ["*/*", "pods", "exec", true],
    ["deployments", "pods", "", false],
  ];
  for (const [entry, resource, subResource, expected] of table)
    it(`${entry} ${expected ? "matches" : "does not match"} ${resource}${subResource ? `/${subResource}` : ""}`, () => {
      expect(matches(rules([entry]), request(resource, subResource))).toBe(expected);
    });
});

describe("rules", () => {
  it("operations, groups and versions: listed or *", () => {
    expect(matches(rules(["pods"], { operations: ["CREATE"] }), request("pods"))).toBe(false);
    expect(matches(rules(["pods"], { operations: ["*"] }), request("pods"))).toBe(true);
    expect(matches(rules(["pods"], { apiGroups: ["apps"] }), request("pods"))).toBe(false);
    expect(matches(rules(["pods"], { apiGroups: ["*"] }), request("pods"))).toBe(true);
  });

  it("matchPolicy Equivalent takes another version and the events twin group; Exact does not", () => {
    const v2 = { apiVersions: ["v2"] };
    expect(matches(rules(["pods"], v2), request("pods"))).toBe(true);
    expect(matches(criteria({ ...rules(["pods"], v2), matchPolicy: "Exact" }), request("pods"))).toBe(false);
    const events = criteria({ resourceRules: [{ apiGroups: ["events.k8s.io"], apiVersions: ["v1"], operations: ["*"], resources: ["events"] }] });
    expect(matches(events, request("events"))).toBe(true);
    expect(matches(criteria({ ...events, matchPolicy: "Exact" }), request("events"))).toBe(false);
  });

  it("resourceNames and scope narrow a rule; excludeResourceRules win", () => {
    expect(matches(rules(["pods"], { resourceNames: ["api"] }), request("pods"))).toBe(false);
    expect(matches(rules(["pods"], { resourceNames: ["api", "web"] }), request("pods"))).toBe(true);
    expect(matches(rules(["pods"], { scope: "Cluster" }), request("pods"))).toBe(false);
    expect(matches(rules(["pods"], { scope: "Namespaced" }), request("pods"))).toBe(true);
    expect(matches(criteria({ ...rules(["pods"]), excludeResourceRules: rules(["pods/*"]).resourceRules }), request("pods"))).toBe(false);
  });
});

describe("RequestMatcher", () => {
  it("asks for the namespace's labels once, and only when a selector needs them", () => {
    const asked: string[] = [];
    const matcher = new RequestMatcher(request("pods"), (name) => (asked.push(name), { env: "prod" }));
    expect(matcher.matches(prepareMatch(rules(["pods"])))).toEqual({ matches: true });
    expect(asked).toEqual([]);
    const prod = prepareMatch(criteria({ ...rules(["pods"]), namespaceSelector: { matchLabels: { env: "prod" } } }));
    const dev = prepareMatch(criteria({ ...rules(["pods"]), namespaceSelector: { matchLabels: { env: "dev" } } }));
    expect([matcher.matches(prod).matches, matcher.matches(dev).matches, matcher.matches(prod).matches]).toEqual([true, false, true]);
    expect(asked).toEqual(["shop"]);
  });

  it("an object selector reads the object's labels, then the old object's", () => {
    const team = prepareMatch(criteria({ objectSelector: { matchLabels: { team: "a" } } }));
    expect(new RequestMatcher(request("pods"), () => undefined).matches(team).matches).toBe(false);
    const old = request("pods", "", { oldObject: { metadata: { labels: { team: "a" } } } });
    expect(new RequestMatcher(old, () => undefined).matches(team).matches).toBe(true);
    // Labels that are not a string map are no labels.
    const odd = request("pods", "", { object: { metadata: { labels: { team: 1 } } } });
    expect(new RequestMatcher(odd, () => undefined).matches(prepareMatch(criteria({ objectSelector: { matchExpressions: [{ key: "team", operator: "DoesNotExist" }] } }))).matches).toBe(false);
  });
});

describe("MatchCriteria", () => {
  it("prepares equal criteria once, and a request is matched against them once", () => {
    const criteria = new MatchCriteria();
    const prod = () => criteria.prepare(matchResourcesSchema.parse({ namespaceSelector: { matchLabels: { env: "prod" } } }));
    const first = prod();
    expect(prod()).toBe(first);
    const other = criteria.prepare(matchResourcesSchema.parse({ namespaceSelector: { matchLabels: { env: "dev" } } }));
    expect(other).not.toBe(first);
    let asked = 0;
    const matcher = new RequestMatcher(request("pods"), () => (asked++, { env: "prod" }));
    expect([matcher.matches(first), matcher.matches(prod()), matcher.matches(other)].map((r) => r.matches)).toEqual([true, true, false]);
    expect(asked).toBe(1);
  });
});
