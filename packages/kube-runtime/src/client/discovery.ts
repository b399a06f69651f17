// apiVersion + kind → ResourceRef through the discovery documents (/api/v1, /apis/<g>/<v>),
// cached per group-version. A kind that is missing is looked up once more, because a CRD may
// have been installed since the document was cached.
import type { V1APIResourceList } from '@kubernetes/client-node';
import { isNotFound } from './errors.js';
import { parseApiVersion, resources, type ResourceRef } from './resources.js';

type Fetch = (path: string) => Promise<V1APIResourceList>;

const WELL_KNOWN = new Map<string, ResourceRef>(
  Object.values(resources).map((ref) => [`${ref.group}/${ref.version}/${ref.kind}`, ref]),
);

export class Discovery {
  readonly #documents = new Map<string, Promise<V1APIResourceList>>();

  constructor(private readonly fetch: Fetch) {}

  async resolve(apiVersion: string, kind: string): Promise<ResourceRef> {
    const { group, version } = parseApiVersion(apiVersion);
    if (!version) throw new Error(`apiVersion ${JSON.stringify(apiVersion)} has no version`);
    if (!kind) throw new Error(`${apiVersion}: an object kind is required`);
    // Built-in kinds need no round trip; CRD kinds (even Profile) are checked with the server.
    const known = WELL_KNOWN.get(`${group}/${version}/${kind}`);
    if (known && known.group !== 'kubeflow.org') return known;
    let found = find(await this.#document(group, version, false), group, version, kind);
    found ??= find(await this.#document(group, version, true), group, version, kind);
    if (found) return found;
    const served = (await this.#document(group, version, false)).resources
      .filter((r) => !r.name.includes('/'))
      .map((r) => r.kind);
    throw new Error(
      `the server has no kind ${kind} in ${apiVersion} (it serves: ${[...new Set(served)].join(', ') || 'nothing'})`,
    );
  }

  async #document(group: string, version: string, refresh: boolean): Promise<V1APIResourceList> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let document = this.#documents.get(path);
    if (!document || refresh) {
      const fetching = this.fetch(path).catch((error: unknown) => {
        if (this.#documents.get(path) === fetching) this.#documents.delete(path);
        if (isNotFound(error)) {
          const apiVersion = group === '' ? version : `${group}/${version}`;
          throw new Error(`the server does not serve ${apiVersion} (is its CRD installed?)`, {
            cause: error,
          });
        }
        throw error;
      });
      this.#documents.set(path, fetching);
      document = fetching;
    }
    return document;
  }
}

function find(
  list: V1APIResourceList,
  group: string,
  version: string,
  kind: string,
): ResourceRef | undefined {
  const match = list.resources.find((r) => r.kind === kind && !r.name.includes('/'));
  return match && { group, version, resource: match.name, kind, namespaced: match.namespaced };
}
