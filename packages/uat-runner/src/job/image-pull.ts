// Which image problems of a waiting container no retry can heal. The kubelet reports every pull
// failure as ErrImagePull, then ImagePullBackOff, and retries for ever; a run that waited for
// its start timeout on an image that does not exist would hold a CI job for minutes. The
// registry's answer, which the kubelet copies into the message, tells a missing or forbidden
// image from a registry that is only unreachable for now; a pull that keeps failing for the
// latter is given up after a while too (job-watch.ts), not after the whole start timeout.

/** Reasons the kubelet gives only for an image that can never be used as written. */
const NEVER_WORKS: Readonly<Record<string, string>> = {
  InvalidImageName: 'is not a valid image reference',
  ErrImageNeverPull: 'is not on the node and imagePullPolicy is Never',
};

/** Reasons of a failed pull, retried by the kubelet whatever the cause. */
const PULL_FAILED = new Set(['ErrImagePull', 'ImagePullBackOff']);

/**
 * What registries (containerd, CRI-O, the Docker registry API) answer for an image that is not
 * there or not for this puller: missing tag or repository, no credentials, refused credentials.
 * Connection errors, timeouts, 5xx and rate limits are not here: they may heal.
 */
const PERMANENT = [
  /\bnot found\b/i,
  /manifest unknown/i,
  /name unknown/i,
  /repository does not exist/i,
  /\bunauthorized\b/i,
  /authentication required/i,
  /\b403 forbidden\b/i,
  /pull access denied/i,
  /requested access to the resource is denied/i,
  /insufficient_scope/i,
  /invalid reference format/i,
];

/**
 * One line naming the image and why it can never start, or undefined when the kubelet's retries
 * may still succeed (or the container is not waiting on its image).
 */
export function permanentImageProblem(
  image: string,
  reason: string | undefined,
  message: string | undefined,
): string | undefined {
  if (reason === undefined) return undefined;
  const never = NEVER_WORKS[reason];
  if (never) return `image ${JSON.stringify(image)} ${never} (${reason})`;
  if (!PULL_FAILED.has(reason)) return undefined;
  const match = PERMANENT.map((pattern) => pattern.exec(message ?? '')).find((m) => m !== null);
  if (!match) return undefined;
  return `image ${JSON.stringify(image)} cannot be pulled: the registry answered "${match[0]}" (${reason}); check its name and tag, and the pull secret of a private registry`;
}

/**
 * One line naming the image and the kubelet's latest pull error, while its pulls fail for a
 * reason that may heal (a registry unreachable, rate-limited); undefined otherwise.
 */
export function failingPull(
  image: string,
  reason: string | undefined,
  message: string | undefined,
): string | undefined {
  if (reason === undefined || !PULL_FAILED.has(reason)) return undefined;
  const said = (message ?? '').replace(/\s+/g, ' ').trim();
  return `image ${JSON.stringify(image)} cannot be pulled (${reason}${said ? `: ${said}` : ''})`;
}
