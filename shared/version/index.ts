// Releases, and what one release accepts of another. The function is
// upgraded at once (`wrangler deploy`); the sync CronJobs and operators' CLIs
// of hundreds of clusters over days or weeks. So the function judges every
// call of a peer within its skew window exactly as that peer's own release
// did, and refuses, naming both releases, a peer outside it (docs/operations.md,
// "Upgrading"). Kubernetes' version skew policy is the model: the control
// plane first, then the kubelets, which may be a few minor releases older.

/** This release: package.json's `version` says the same (a test holds them together). */
export const RELEASE = "0.2.0";

/**
 * Every release, oldest first, with the SnapshotPush apiVersion its sync
 * job sends: a new apiVersion whenever a function of the release before
 * could not read what the new job pushes. `commit` is the release's git
 * commit, known once it was cut (this release's is not, until the next).
 */
export const RELEASES: readonly ReleaseInfo[] = [
  { version: "0.1.0", commit: "aed88a98a0a2292ebe4a082f3258f0c282cf8c96", date: "2026-11-27", pushApiVersion: "edgeadmit.io/v1alpha1" },
  { version: "0.2.0", commit: undefined, date: "2026-11-28", pushApiVersion: "edgeadmit.io/v1alpha1" },
];

export interface ReleaseInfo {
  version: string;
  commit: string | undefined;
  date: string;
  pushApiVersion: string;
}

/**
 * Minor releases older than the function that its peers may run: a sync
 * job or CLI of this release or of the SKEW_MINOR_RELEASES before it is
 * served; an older or a newer one is refused.
 */
export const SKEW_MINOR_RELEASES = 2;

/** What a peer that names no release runs: 0.1.0 (aed88a9), the last release that sent none, or one before it. */
export const UNNAMED_RELEASE = "0.1.0";

/** The header a sync job or CLI names its release and verb in, as kubectl and the kubelet do: `edgeadmit/0.2.0 (sync; 1a2b3c4)`. */
export const USER_AGENT_HEADER = "user-agent";
/** The header the function names its own release in, on every answer to an authenticated peer. */
export const FUNCTION_RELEASE_HEADER = "edgeadmit-release";

const SEMVER = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})(?:-([0-9A-Za-z.-]{1,32}))?$/;
const AGENT = /^edgeadmit\/(\S{1,64}) \(([a-z][a-z -]{0,30}[a-z])(?:; ([0-9a-f]{7,40}|unknown))?\)$/;

export interface Release {
  major: number;
  minor: number;
  patch: number;
  text: string;
}

/** `text` as a release (semver: major.minor.patch and an optional pre-release), or undefined. */
export function parseRelease(text: string): Release | undefined {
  const match = SEMVER.exec(text);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), text };
}

/** The User-Agent a peer of `release` sends for `verb` (`sync`, `clusters list`…), with its commit when known. */
export function userAgent(release: string, verb: string, commit: string | undefined): string {
  return `edgeadmit/${release} (${verb}${commit ? `; ${commit}` : ""})`;
}

/** Who called, as its User-Agent says: its release and verb; `named: false` when it names none (a peer of 0.1.0 or older, or curl). */
export interface Peer {
  release: Release;
  verb: string | undefined;
  commit: string | undefined;
  named: boolean;
}

/** The peer a User-Agent header names; one that is not edgeadmit's, or absent, is UNNAMED_RELEASE. */
export function peerOf(header: string | undefined | null): Peer {
  const match = header ? AGENT.exec(header.slice(0, 200)) : null;
  const release = match ? parseRelease(match[1]!) : undefined;
  if (!match || !release) return { release: parseRelease(UNNAMED_RELEASE)!, verb: undefined, commit: undefined, named: false };
  return { release, verb: match[2], commit: match[3], named: true };
}

/** How a peer is named in messages and logs: `sync 0.2.0`, or `0.1.0 or older (it named no release)`. */
export function describePeer(peer: Peer): string {
  return peer.named ? `${peer.verb ? `${peer.verb} ` : ""}${peer.release.text}` : `${UNNAMED_RELEASE} or older (it named no release)`;
}

/** This release as major.minor: what the skew window counts in. */
const thisMinor = () => RELEASE.split(".").slice(0, 2).join(".");

/** Minor releases are ordered across majors by this number (a major holds fewer than 1,000,000 minors). */
const ordinal = (release: { major: number; minor: number }) => release.major * 1_000_000 + release.minor;

/**
 * The oldest major.minor a function of `release` serves: SKEW_MINOR_RELEASES
 * minors back, within the releases there were (RELEASES, and `release`
 * itself: the next one's window is known before it is cut).
 */
export function oldestServed(release: Release = parseRelease(RELEASE)!): string {
  const first = ordinal(parseRelease(RELEASES[0]!.version)!);
  const known = RELEASES.map((entry) => ordinal(parseRelease(entry.version)!));
  // The minors just before it of the same major, cut or not yet, and the releases there were (across a major).
  const before = Array.from({ length: SKEW_MINOR_RELEASES }, (_, back) => ordinal(release) - back - 1).filter((minor) => minor >= first && minor % 1_000_000 < release.minor);
  const minors = [...new Set([ordinal(release), ...before, ...known.filter((minor) => minor <= ordinal(release))])].sort((a, b) => b - a);
  const oldest = minors[Math.min(SKEW_MINOR_RELEASES, minors.length - 1)]!;
  return `${Math.floor(oldest / 1_000_000)}.${oldest % 1_000_000}`;
}

/** The next minor release after this one: what `clusters list` checks the sync jobs against before an upgrade. */
export function nextMinorRelease(release: Release = parseRelease(RELEASE)!): Release {
  return parseRelease(`${release.major}.${release.minor + 1}.0`)!;
}

/** Whether a function of `functionRelease` serves a peer of `peerRelease` (the skew window, both ends). */
export function served(peerRelease: Release, functionRelease: Release): boolean {
  const oldest = parseRelease(`${oldestServed(functionRelease)}.0`)!;
  return ordinal(peerRelease) >= ordinal(oldest) && ordinal(peerRelease) <= ordinal(functionRelease);
}

/**
 * Whether a release of `reader` reads what one of `writer` stored: the
 * releases of its skew window, and the next one (readers ship a release
 * before writers, so rolling back one release is safe).
 */
export function readsStateOf(writer: Release, reader: Release): boolean {
  return served(writer, reader) || (writer.major === reader.major && writer.minor === reader.minor + 1);
}

/**
 * Why a function of `functionRelease` refuses a call of `peer`, or
 * undefined: a peer newer than the function (the function is upgraded
 * first), or older than its window. The words name both releases and what
 * to upgrade.
 */
export function skewProblem(peer: Peer, functionRelease: Release = parseRelease(RELEASE)!): string | undefined {
  const who = peer.verb === "sync" ? "the sync job" : "this edgeadmit";
  if (ordinal(peer.release) > ordinal(functionRelease))
    return `${who} (${describePeer(peer)}) is newer than the function (${functionRelease.text}): upgrade the function first (wrangler deploy), then the sync jobs and CLIs (docs/operations.md, "Upgrading")`;
  const oldest = parseRelease(`${oldestServed(functionRelease)}.0`)!;
  if (ordinal(peer.release) < ordinal(oldest)) {
    const fix =
      peer.verb === "sync" || !peer.named
        ? `upgrade the cluster's CronJob edgeadmit-sync (namespace edgeadmit-system) to ${functionRelease.text}: kubectl -n edgeadmit-system set image cronjob/edgeadmit-sync edgeadmit=<registry>/edgeadmit:${functionRelease.text}, or apply the release's infra/k8s`
        : `use the edgeadmit CLI of ${functionRelease.text}`;
    return `${who} (${describePeer(peer)}) is older than the function (${functionRelease.text}) serves: it serves releases ${oldest.major}.${oldest.minor} to ${functionRelease.major}.${functionRelease.minor}; ${fix} (docs/operations.md, "Upgrading")`;
  }
  return undefined;
}

/**
 * What to add when a push from `peer` cannot be read, unless the job is of
 * this release: its release and the function's, and what to upgrade (a job
 * of a release before 0.1.0, which named none, pushes what this function
 * may not read).
 */
export function pushUnreadableHint(peer: Peer): string | undefined {
  if (peer.named && peer.release.major === parseRelease(RELEASE)!.major && peer.release.minor === parseRelease(RELEASE)!.minor) return undefined;
  return `the sync job is ${describePeer(peer)}, the function ${RELEASE}, which reads the pushes of releases ${oldestServed()} to ${thisMinor()}: upgrade the cluster's CronJob edgeadmit-sync (namespace edgeadmit-system) to ${RELEASE} (docs/operations.md, "Upgrading")`;
}
