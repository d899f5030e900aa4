import { describe, expect, it } from "vitest";
import { compile, createEnv, type Value } from "../index.js";
import { literalEngine } from "../../../test/support/cel/index.js";
import { KUBERNETES_LIBRARIES } from "./index.js";

const env = createEnv({
  variables: ["object", "params"],
  regex: literalEngine,
  libraries: KUBERNETES_LIBRARIES,
});

function run(source: string, activation: Record<string, unknown> = {}) {
  const c = compile(source, env);
  if (!c.ok) throw new Error(c.error);
  return c.program.evaluate(activation as never);
}

describe("KUBERNETES_LIBRARIES", () => {
  it("enables every library together, their shared names dispatching on the receiver", () => {
    const object = {
      spec: {
        containers: [{ image: "registry.example.com/app:v1", resources: { limits: { memory: "512Mi", cpu: "500m" } } }],
        endpoint: "https://api.example.com:8443/v1?region=eu",
        podCIDR: "10.244.1.0/24",
        podIP: "10.244.1.7",
      },
    };
    const source = [
      "object.spec.containers.all(c, quantity(c.resources.limits.memory).isLessThan(quantity('1Gi')))",
      "url(object.spec.endpoint).getHostname() == 'api.example.com'",
      "url(object.spec.endpoint).getQuery()['region'] == ['eu']",
      "cidr(object.spec.podCIDR).containsIP(object.spec.podIP)",
      "cidr(object.spec.podCIDR).ip().family() == 4 && string(ip(object.spec.podIP)) == object.spec.podIP",
      "object.spec.containers[0].image.find('app') == 'app'",
      "[3, 1].indexOf(1) == 1 && 'abc'.indexOf('c') == 2",
      "[1, 2].sum() == 3",
      "sets.contains(['a', 'b'], ['b'])",
      "!format.dns1123Label().validate(object.spec.containers[0].image).hasValue() == false",
    ].join(" && ");
    expect(run(source, { object })).toMatchObject({ ok: true, value: true });
  });

  it("reports runtime errors with Kubernetes' texts", () => {
    expect(run("quantity(object.x)", { object: { x: "10Mm" } })).toMatchObject({ ok: false, error: "unable to parse quantity's suffix" });
  });
});

// What the edge's meter (CallContext.chargeEdge) takes beyond the apiserver's cost: the review's edge budget
// counts it, so that a function's time stays within a fixed time per unit (npm run bench, section 12); the cost
// itself stays the apiserver's (npm run conformance pins it to Kubernetes' tables). Inputs are variables: a
// conversion of a constant is folded when the expression is compiled (cel.OptOptimize), with nothing to meter.
describe("the edge's meter", () => {
  const metered = (source: string, s: Value) => {
    const c = compile(source, createEnv({ variables: ["s"], libraries: KUBERNETES_LIBRARIES }));
    if (!c.ok) throw new Error(c.error);
    const meter = { limit: Infinity, spent: 0 };
    const result = c.program.evaluate({ s }, undefined, meter);
    if (!result.ok) throw new Error(result.error);
    return meter.spent;
  };

  it("takes one unit per value a function makes or copies into its result", () => {
    expect(metered("s.findAll('[a-z]+')", "ab-cd-e")).toBe(3);
    expect(metered("s.findAll('[a-z]+', 2)", "ab-cd-e")).toBe(2);
    expect(metered("s.split(',')", "a,b,c,d")).toBe(4);
    expect(metered("url(s).getQuery()", "https://example.com/?a=1&b=2&a=3")).toBe(3);
    expect(metered("'%s and %s'.format(s)", [[1n, 2n], { k: [3n] }])).toBe(2 + 1 + 1);
    expect(metered("isSemver(s)", "1.2.3-alpha.1+build.7")).toBe(2 + 2);
    expect(metered("s.flatten()", [[1n, 2n], [3n], 4n])).toBe(4);
  });

  it("takes 0.1 per character a conversion reads and per character an escaped string adds", () => {
    expect(metered("int(s)", "1234567890123")).toBe(2);
    expect(metered("string(s)", new TextEncoder().encode("abc"))).toBe(1);
    expect(metered("strings.quote(s)", "a\nb\tc")).toBe(1);
    expect(metered("strings.quote(s)", "abc")).toBe(0);
  });

  it("takes nothing for what the apiserver's cost already pays", () => {
    expect(metered("s.matches('^[a-c]+$') && s.contains('b') && s.replace('b', '+') == 'a+c'", "abc")).toBe(0);
  });
});
