// The Kubernetes function libraries of the apiserver's base CEL environment
// (k8s.io/apiserver/pkg/cel/environment/base.go) that policies evaluated at
// the edge can use: lists, regex, URLs (1.0+), quantity (1.28+), IP and CIDR
// (1.30+), format (1.31+), semver (1.33+), and cel-go's sets extension (1.29+). The authorizer library needs a
// live apiserver and is not here.
//
//   const env = createEnv({ variables, libraries: KUBERNETES_LIBRARIES });

import type { Library } from "../declarations/index.js";
import type { RegexLibrary } from "../regex/index.js";
import { cidrLibrary } from "./cidr/index.js";
import { formatLibrary } from "./format/index.js";
import { ipLibrary } from "./ip/index.js";
import { listsLibrary } from "./lists/index.js";
import { quantityLibrary } from "./quantity/index.js";
import { regexLibrary } from "./regex/index.js";
import { semverLibrary } from "./semver/index.js";
import { setsLibrary } from "./sets/index.js";
import { urlLibrary } from "./url/index.js";

/** The Kubernetes libraries of the base environment; find/findAll use the environment's regex engine. */
export const KUBERNETES_LIBRARIES: readonly (Library | RegexLibrary)[] = [listsLibrary, regexLibrary, urlLibrary, quantityLibrary, ipLibrary, cidrLibrary, setsLibrary, formatLibrary, semverLibrary];
