// `templates`: any other objects, from YAML with `{{ profile.name }}`, `{{ owner.name }}`,
// `{{ profile.labels["key"] }}`, `{{ values.x }}` holes and `{{ if }}`/`{{ for }}` lines: the
// escape hatch for site-specific objects such as an Istio AuthorizationPolicy, an ArgoCD
// Application per tenant or an opt-in app. Templates come from files, from the config itself,
// or ship with kfx (`shipped`, e.g. Kubeflow's ns-owner-access-istio). Objects go to the
// Profile's namespace unless the template names another (a Profile is cluster-scoped, so it
// can own objects in any namespace).
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type KubeObject } from '@kfx/kube-runtime/client';
import { ConfigError } from '@kfx/kube-runtime/serving';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import type { Problem, ProfileReconciler } from '../reconciler.js';
import { contributorsFrom, ROLE_BINDINGS_READ, skippedMessage } from '../templates/contributors.js';
import {
  baseScope,
  CONTRIBUTOR_LISTS,
  templateValues,
  type SiteValues,
} from '../templates/scope.js';
import { SHIPPED_TEMPLATES } from '../templates/shipped.js';
import { TemplateError } from '../templates/template-error.js';
import {
  compileTemplate,
  renderTemplate,
  type CompiledTemplate,
} from '../templates/template-file.js';

const VALUE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const templatesConfigSchema = z
  .strictObject({
    /** Templates that ship with kfx, by name. */
    shipped: z.array(z.enum(Object.keys(SHIPPED_TEMPLATES) as [string, ...string[]])).default([]),
    /** YAML files of objects with `{{ … }}` holes; relative paths are relative to the config file. */
    files: z.array(z.string().min(1)).default([]),
    /** Templates written into the config itself. */
    inline: z.array(z.strictObject({ name: z.string().min(1), content: z.string() })).default([]),
    /**
     * Contributors a Profile's templates see at most (the first by name): a tenant adds
     * contributors at will, and each may be several objects the shared controller writes.
     */
    maxContributors: z.number().int().min(0).max(10_000).default(200),
    /** Objects the templates make for one Profile at most; the rest are not made. */
    maxObjects: z.number().int().min(1).max(100_000).default(1000),
    /** Site settings templates read as `{{ values.name }}` (text) or loop over (lists). */
    values: z
      .record(
        z.string().regex(VALUE_NAME, 'expected a name of letters, digits, "_" and "-"'),
        z.union([z.string(), z.array(z.string())]),
      )
      .default({}),
  })
  .prefault({});

export type TemplatesConfig = z.infer<typeof templatesConfigSchema>;

export interface PreparedTemplates {
  templates: CompiledTemplate[];
  maxContributors: number;
  maxObjects: number;
  values: SiteValues;
  /** Some template loops over `contributors` or `groupContributors`: RoleBindings are read. */
  contributors: boolean;
}

function readTemplate(file: string, baseDir: string, key: string): string {
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new TemplateError(
      `${key}.files: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

export const templatesReconciler: ProfileReconciler<TemplatesConfig, PreparedTemplates> = {
  name: 'templates',
  configSchema: templatesConfigSchema,
  prepare(config, env) {
    const scope = baseScope(config.values);
    const sources: [string, string][] = [
      ...config.shipped.map((name): [string, string] => [
        `${name} (shipped)`,
        SHIPPED_TEMPLATES[name] ?? '',
      ]),
      ...config.files.map((file): [string, string] => [
        file,
        readTemplate(file, env.baseDir, env.key),
      ]),
      ...config.inline.map(({ name, content }): [string, string] => [name, content]),
    ];
    const templates = sources.map(([source, content]) => compileTemplate(source, content, scope));
    const used = new Set(templates.flatMap((t) => [...t.uses]));
    const unused = Object.keys(config.values).filter((name) => !used.has(`values.${name}`));
    if (unused.length > 0) {
      throw new ConfigError([
        `${env.key}.values: ${unused.map((n) => JSON.stringify(n)).join(', ')} ${unused.length === 1 ? 'is' : 'are'} used by no template (a typo?)`,
      ]);
    }
    return {
      templates,
      maxContributors: config.maxContributors,
      maxObjects: config.maxObjects,
      values: config.values,
      contributors: CONTRIBUTOR_LISTS.some((list) => used.has(list)),
    };
  },
  kinds: ({ templates }) => templates.flatMap((template) => template.kinds),
  reads: ({ contributors }) => (contributors ? [ROLE_BINDINGS_READ] : []),
  namespaces: ({ templates }) =>
    templates.flatMap((template) =>
      template.namespaces.map((name) => ({
        name,
        why: `template ${template.source} puts objects in it`,
      })),
    ),
  desired(profile, { config, read }) {
    const namespace = profileNamespace(profile);
    const problems: Problem[] = [];
    const { contributors, groups, skipped } = config.contributors
      ? contributorsFrom(read.list(ROLE_BINDINGS_READ, namespace))
      : { contributors: [], groups: [], skipped: [] };
    // Set when some objects are not made: the earlier ones are then kept, not deleted. A skipped
    // binding is not such a case: what was made for the user it named goes.
    let incomplete = false;
    for (const [list, count] of [
      ['contributors', contributors.length],
      ['group contributors', groups.length],
    ] as const) {
      if (count <= config.maxContributors) continue;
      incomplete = true;
      problems.push({
        message: `${count} ${list}, more than maxContributors (${config.maxContributors}): the templates see the first ${config.maxContributors} by name`,
      });
    }
    if (skipped.length > 0) problems.push({ message: skippedMessage(skipped) });
    const values = templateValues(profile, {
      values: config.values,
      contributors: contributors.slice(0, config.maxContributors),
      groupContributors: groups.slice(0, config.maxContributors),
    });
    const objects: KubeObject[] = [];
    for (const template of config.templates) {
      try {
        for (const object of renderTemplate(template, values)) {
          const metadata = { ...object.metadata };
          metadata.namespace ??= namespace;
          objects.push({ ...object, metadata });
        }
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        problems.push({ message: error.message });
        incomplete = true;
      }
    }
    if (objects.length > config.maxObjects) {
      problems.push({
        message: `the templates make ${objects.length} objects, more than maxObjects (${config.maxObjects}): the first ${config.maxObjects} are made`,
      });
      objects.length = config.maxObjects;
      incomplete = true;
    }
    return { objects, problems, incomplete };
  },
};
