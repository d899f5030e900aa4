import { describe, expect, it } from "vitest";
import { holdsHostPort } from "./index.js";

const ports = (...list: Array<Record<string, number>>) => ({ name: "c", ports: list });

describe("holdsHostPort", () => {
  it("sees a hostPort on a container or a sidecar, not on a plain init container", () => {
    expect(holdsHostPort({ containers: [ports({ containerPort: 80, hostPort: 8080 })] })).toBe(true);
    expect(holdsHostPort({ containers: [ports({ containerPort: 80 })], initContainers: [{ ...ports({ containerPort: 9, hostPort: 9 }), restartPolicy: "Always" }] })).toBe(true);
    expect(holdsHostPort({ containers: [ports({ containerPort: 80 })], initContainers: [ports({ containerPort: 9, hostPort: 9 })] })).toBe(false);
  });

  it("counts every containerPort as a host port under hostNetwork, and none without ports", () => {
    expect(holdsHostPort({ hostNetwork: true, containers: [ports({ containerPort: 9100 })] })).toBe(true);
    expect(holdsHostPort({ hostNetwork: true, containers: [ports({ containerPort: 53, hostPort: 0 })] })).toBe(true);
    expect(holdsHostPort({ hostNetwork: true, containers: [{ name: "c" }] })).toBe(false);
    expect(holdsHostPort({ containers: [ports({ containerPort: 80, hostPort: 0 })] })).toBe(false);
  });
});
