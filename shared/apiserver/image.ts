// The pull policy an image reference gets by default: Always for the tag
// "latest" (written, or implied by a reference with neither tag nor digest),
// IfNotPresent otherwise, and IfNotPresent for a reference that does not
// parse (pkg/apis/core/v1/defaults.go SetDefaults_Container, through
// pkg/util/parsers ParseImageName and the distribution reference grammar:
// github.com/distribution/reference regexp.go, normalize.go).

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
/** ReferenceRegexp, anchored: name (with an optional domain), tag, digest. */
const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);
/** A 64-hex-digit string alone names an image ID, which ParseNormalizedNamed refuses as a repository name. */
const IDENTIFIER = /^[a-f0-9]{64}$/;
/** NameTotalLengthMax (255) plus a tag (128) and a long digest: a longer text cannot parse, and the regular expression never sees it. */
const MAX_REFERENCE = 1024;

/** The tag ParseImageName gives `image`: its tag, "latest" when it has neither tag nor digest, "" with a digest alone or when it does not parse. */
export function imageTag(image: string): string {
  if (image.length > MAX_REFERENCE || IDENTIFIER.test(image)) return "";
  const match = REFERENCE.exec(image);
  if (match === null || match[1]!.length > 255) return "";
  if (match[2] !== undefined) return match[2];
  return match[3] === undefined ? "latest" : "";
}

/** The default pullPolicy of a container or an image volume with `image`. */
export const defaultPullPolicy = (image: unknown): "Always" | "IfNotPresent" => (imageTag(typeof image === "string" ? image : "") === "latest" ? "Always" : "IfNotPresent");
