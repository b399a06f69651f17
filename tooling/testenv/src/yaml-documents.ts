// Multi-document YAML — `helm template` output, a rendered manifest stream, a kubeconfig — read
// the one way every test reads it: a document that does not parse throws, naming where the text
// came from and which document (a test never goes on with half a stream), and empty documents
// (helm's comment-only `# Source:` ones, a trailing `---`) are skipped.
import { parseAllDocuments } from 'yaml';

export interface YamlDocumentsOptions {
  /** `'1.1'` reads the text as kubectl does (a bare `off` is false); default YAML 1.2. */
  version?: '1.1' | '1.2';
}

/** The documents of `text` as plain values, in order; `source` names the text in errors. */
export function parseYamlDocuments<T = unknown>(
  text: string,
  source: string,
  options: YamlDocumentsOptions = {},
): T[] {
  return parseAllDocuments(text, options).flatMap((document, index) => {
    const error = document.errors[0];
    if (error) {
      throw new Error(`${source}: YAML document ${index + 1}: ${error.message}`, { cause: error });
    }
    const value: unknown = document.toJS();
    return value === null || value === undefined ? [] : [value as T];
  });
}
