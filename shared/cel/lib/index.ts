// The Kubernetes function libraries of the apiserver's base CEL environment
// (k8s.io/apiserver/pkg/cel/environment/base.go) that policies evaluated at
// the edge can use: lists, regex, URLs (1.0+), quantity (1.28+), IP and CIDR
// (1.30+), format (1.31+), semver (1.33+), and cel-go's sets extension (1.29+). The authorizer library needs a
// live apiserver and is not here.
//
//   const env = createEnv({ variables, regex: compileRegex, libraries: kubernetesLibraries(compileRegex) });

import type { Library } from "../library/index.js";
import type { RegexCompiler } from "../regex/index.js";
import { cidrLibrary } from "./cidr/index.js";
import { formatLibrary } from "./format/index.js";
import { ipLibrary } from "./ip/index.js";
import { listsLibrary } from "./lists/index.js";
import { quantityLibrary } from "./quantity/index.js";
import { regexLibrary } from "./regex/index.js";
import { semverLibrary } from "./semver/index.js";
import { setsLibrary } from "./sets/index.js";
import { urlLibrary } from "./url/index.js";

export { cidrLibrary, CIDRValue, CIDR_TYPE } from "./cidr/index.js";
export { formatLibrary, FormatValue, FORMAT_TYPE } from "./format/index.js";
export { ipLibrary, IPValue, IP_TYPE } from "./ip/index.js";
export { listsLibrary } from "./lists/index.js";
export { quantityLibrary, QuantityValue, QUANTITY_TYPE } from "./quantity/index.js";
export { regexLibrary } from "./regex/index.js";
export { semverLibrary, SemverValue, SEMVER_TYPE } from "./semver/index.js";
export { setsLibrary } from "./sets/index.js";
export { urlLibrary, UrlValue, URL_TYPE } from "./url/index.js";

/** The Kubernetes libraries of the base environment; `regex` is the RE2 engine for find/findAll (shared/re2's compileRegex). */
export function kubernetesLibraries(regex: RegexCompiler | undefined): Library[] {
  return [listsLibrary, regexLibrary(regex), urlLibrary, quantityLibrary, ipLibrary, cidrLibrary, setsLibrary, formatLibrary, semverLibrary];
}
