// The Kubernetes function libraries of the apiserver's base CEL environment
// (k8s.io/apiserver/pkg/cel/environment/base.go) that policies evaluated at
// the edge can use: lists, regex, URLs (1.0+), quantity (1.28+), sets (cel-go
// ext.Sets, 1.29+), IP and CIDR (1.30+), format (1.31+), semver (1.33+),
// cel-go's ext.Lists v3 (1.34+) and lists' includes (1.37+). The authorizer
// library needs a live apiserver and is not here. environment.ts picks the
// ones of each Kubernetes version.
//
//   const env = createEnv({ variables, libraries: KUBERNETES_LIBRARIES });

import type { Library } from "../declarations/index.js";
import type { RegexLibrary } from "../regex/index.js";
import { environmentFor, NEWEST_VERSION } from "./environment.js";

/** The Kubernetes libraries of the newest version's environment; find/findAll use the environment's regex engine. */
export const KUBERNETES_LIBRARIES: readonly (Library | RegexLibrary)[] = environmentFor(NEWEST_VERSION, "stored").options.libraries;
