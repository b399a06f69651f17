// `templates`: any other objects, from YAML files with `{{ profile.name }}`, `{{ owner.name }}`,
// `{{ profile.labels["key"] }}` holes: the escape hatch for site-specific objects such as an
// Istio AuthorizationPolicy or an ArgoCD Application per tenant. Objects go to the Profile's
// namespace unless the template names another (a Profile is cluster-scoped, so it can own
// objects in any namespace).
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import type { Problem, ProfileReconciler } from '../reconciler.js';
import {
  compileTemplate,
  renderTemplate,
  type CompiledTemplate,
} from '../templates/template-file.js';
import { TemplateError, templateValues } from '../templates/template-text.js';
import type { KubeObject } from '@kfx/kube-runtime';

export const templatesConfigSchema = z
  .strictObject({
    /** YAML files of objects with `{{ … }}` holes; relative paths are relative to the config file. */
    files: z.array(z.string().min(1)).default([]),
    /** Templates written into the config itself. */
    inline: z.array(z.strictObject({ name: z.string().min(1), content: z.string() })).default([]),
  })
  .prefault({});

export type TemplatesConfig = z.infer<typeof templatesConfigSchema>;

export interface PreparedTemplates {
  templates: CompiledTemplate[];
}

export const templatesReconciler: ProfileReconciler<TemplatesConfig, PreparedTemplates> = {
  name: 'templates',
  configSchema: templatesConfigSchema,
  prepare(config, env) {
    const templates = config.files.map((file) => {
      const path = isAbsolute(file) ? file : resolve(env.baseDir, file);
      let content: string;
      try {
        content = readFileSync(path, 'utf8');
      } catch (error) {
        throw new TemplateError(
          `${env.key}.files: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        );
      }
      return compileTemplate(file, content);
    });
    for (const { name, content } of config.inline) templates.push(compileTemplate(name, content));
    return { templates };
  },
  kinds: ({ templates }) => templates.flatMap((template) => template.kinds),
  desired(profile, { config }) {
    const values = templateValues(profile);
    const objects: KubeObject[] = [];
    const problems: Problem[] = [];
    for (const template of config.templates) {
      try {
        for (const object of renderTemplate(template, values)) {
          const metadata = { ...object.metadata };
          metadata.namespace ??= profileNamespace(profile);
          objects.push({ ...object, metadata });
        }
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        problems.push({ message: error.message });
      }
    }
    return { objects, problems, incomplete: problems.length > 0 };
  },
};
