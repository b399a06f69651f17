// The suite's files from a git repository or a local folder rather than baked into its image: an
// init container puts them into an emptyDir that the suite's container sees as its working
// folder. From git, a shallow fetch of one ref (branch, tag or commit), through the run's proxy
// settings (the init container reads the env Secret like the suite does), with the credentials
// of the URL from a Secret of the run that only the init container mounts (git-source.ts); its
// script refuses a URL or ref that starts with "-" whoever wrote it into the pod, and ends git's
// options before every value it passes on. From a folder, the tar.gz the runner packed into a
// Secret, unpacked. The init container runs as a non-root user
// with no privileges and a read-only root filesystem, so that it passes the `restricted` Pod
// Security level wherever the suite's own container does; it makes the files writable by any
// user, since the suite's image may run as another one (notebooks are saved where they lie).
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { UatInputError } from '../base/outcome.js';

export type SuiteFiles =
  | {
      kind: 'git';
      /** Without credentials. */
      url: string;
      ref?: string | undefined;
      /** The Secret with the URL's credentials (key `credentials`), and the origin they are for. */
      credentials?: { secret: string; origin: string } | undefined;
    }
  | { kind: 'archive'; secret: string; folder: string };

export const SUITE_FILES = {
  container: 'kfx-suite-files',
  volume: 'kfx-suite-files',
  archiveVolume: 'kfx-suite-archive',
  archiveKey: 'suite.tar.gz',
  gitVolume: 'kfx-suite-git',
  gitMount: '/kfx-suite-git',
  /** The key of the git Secret: a credential helper's answer (`username=…`, `password=…`). */
  gitKey: 'credentials',
  /** Where the init container sees the emptyDir; the files go to its `files` folder. */
  scratch: '/kfx-suite',
  archiveMount: '/kfx-suite-archive',
  subPath: 'files',
  /** The init container's user: any non-root uid works, the image need not know it. */
  uid: 65532,
} as const;

// The pod spec can reach this script with values kfx never checked (a Job template filled in
// later), so it refuses option-like ones itself; and "--" ends git's options before every value
// (git has taken "--" since parse-options, long before --end-of-options). The credential helper
// answers only "get" for the URL's origin, from the mounted Secret: the token is in no
// argument, no environment variable and no file of the checkout.
const GIT_SCRIPT = `set -eu
case "$KFX_GIT_URL" in -*)
  echo 'kfx: the git URL (--git) starts with "-", which git would read as an option: refused' >&2
  exit 2 ;;
esac
case "$KFX_GIT_REF" in -*)
  printf 'kfx: the git ref (--git-ref) "%s" starts with "-", which git would read as an option: refused\\n' "$KFX_GIT_REF" >&2
  exit 2 ;;
esac
mkdir -p "$KFX_FILES" && cd "$KFX_FILES"
git -c init.defaultBranch=kfx init -q
git remote add -- origin "$KFX_GIT_URL"
set --
if [ -n "\${KFX_GIT_CREDENTIALS:-}" ]; then
  set -- -c credential.helper= -c "credential.$KFX_GIT_CREDENTIALS_FOR.helper="'!f() { if [ "$1" = get ]; then cat "$KFX_GIT_CREDENTIALS"; fi; }; f'
fi
git "$@" fetch -q --depth 1 -- origin "$KFX_GIT_REF"
git checkout -q --detach FETCH_HEAD
echo "kfx: suite files at $KFX_GIT_REF, commit $(git rev-parse HEAD)"
chmod -R a+rwX .`;

const ARCHIVE_SCRIPT = `set -eu
mkdir -p "$KFX_FILES"
tar -xzf "$KFX_ARCHIVE" -C "$KFX_FILES"
chmod -R a+rwX "$KFX_FILES"
echo "kfx: suite files unpacked from $KFX_FOLDER"`;

export interface SuiteFilesInput {
  files: SuiteFiles;
  image: string;
  /** Where the suite's container finds them; also its working folder unless it names one. */
  workdir: string;
  /** Where the Job came from, for error messages. */
  source: string;
}

/** Adds the init container and volumes; mounts the files into `main`. */
export function addSuiteFiles(spec: V1PodSpec, main: V1Container, input: SuiteFilesInput): void {
  const { files } = input;
  const names = new Set((spec.volumes ?? []).map((v) => v.name));
  for (const name of [SUITE_FILES.volume, SUITE_FILES.archiveVolume, SUITE_FILES.gitVolume]) {
    if (names.has(name)) {
      throw new UatInputError(
        `${input.source}: the pod already has a volume named ${name}, which kfx uses for the suite's files; rename it`,
      );
    }
  }
  if ((main.volumeMounts ?? []).some((m) => m.mountPath === input.workdir)) {
    throw new UatInputError(
      `${input.source}: container ${main.name} already mounts something at ${input.workdir}, where the suite's files go; pass another --workdir`,
    );
  }
  const env = [
    { name: 'KFX_FILES', value: `${SUITE_FILES.scratch}/${SUITE_FILES.subPath}` },
    // git reads its config from HOME; the root filesystem is read-only.
    { name: 'HOME', value: SUITE_FILES.scratch },
    ...(files.kind === 'git'
      ? [
          { name: 'KFX_GIT_URL', value: files.url },
          { name: 'KFX_GIT_REF', value: files.ref ?? 'HEAD' },
          // No prompt to wait for: a missing or refused credential fails at once, saying so.
          { name: 'GIT_TERMINAL_PROMPT', value: '0' },
          ...(files.credentials
            ? [
                {
                  name: 'KFX_GIT_CREDENTIALS',
                  value: `${SUITE_FILES.gitMount}/${SUITE_FILES.gitKey}`,
                },
                { name: 'KFX_GIT_CREDENTIALS_FOR', value: files.credentials.origin },
              ]
            : []),
        ]
      : [
          { name: 'KFX_ARCHIVE', value: `${SUITE_FILES.archiveMount}/${SUITE_FILES.archiveKey}` },
          { name: 'KFX_FOLDER', value: files.folder },
        ]),
  ];
  const init: V1Container = {
    name: SUITE_FILES.container,
    image: input.image,
    command: ['sh', '-c', files.kind === 'git' ? GIT_SCRIPT : ARCHIVE_SCRIPT],
    env,
    volumeMounts: [
      { name: SUITE_FILES.volume, mountPath: SUITE_FILES.scratch },
      ...(files.kind === 'archive'
        ? [{ name: SUITE_FILES.archiveVolume, mountPath: SUITE_FILES.archiveMount, readOnly: true }]
        : []),
      ...(files.kind === 'git' && files.credentials
        ? [{ name: SUITE_FILES.gitVolume, mountPath: SUITE_FILES.gitMount, readOnly: true }]
        : []),
    ],
    // What git or tar said goes into the pod's status, and so into the run's reason.
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: {
      runAsNonRoot: true,
      runAsUser: SUITE_FILES.uid,
      runAsGroup: SUITE_FILES.uid,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
  };
  spec.initContainers = [...(spec.initContainers ?? []), init];
  spec.volumes = [
    ...(spec.volumes ?? []),
    { name: SUITE_FILES.volume, emptyDir: {} },
    ...(files.kind === 'archive'
      ? [{ name: SUITE_FILES.archiveVolume, secret: { secretName: files.secret } }]
      : []),
    ...(files.kind === 'git' && files.credentials
      ? [{ name: SUITE_FILES.gitVolume, secret: { secretName: files.credentials.secret } }]
      : []),
  ];
  main.volumeMounts = [
    ...(main.volumeMounts ?? []),
    { name: SUITE_FILES.volume, mountPath: input.workdir, subPath: SUITE_FILES.subPath },
  ];
  main.workingDir ??= input.workdir;
}
