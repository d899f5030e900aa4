import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../index.js";
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
