// One reader for the YAML configuration files of kfx's apps and CLI: the file's top-level
// mapping, or a ConfigError naming the file and what is wrong with it (unreadable, not YAML with
// the place the parser stopped, not a mapping). An empty file is an empty mapping.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ConfigError } from './config-issues.js';
import { messageOf } from './message-of.js';

export type ConfigDocument = Record<string, unknown>;

/** The top-level mapping of a configuration's YAML text; `source` names it in errors. */
export function parseConfigText(text: string, source: string): ConfigDocument {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    const firstLine = messageOf(error).split('\n')[0] ?? '';
    throw new ConfigError([`${source} is not valid YAML: ${firstLine}`]);
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) {
    const found = Array.isArray(document) ? 'a list' : `a ${typeof document}`;
    throw new ConfigError([
      `${source}: expected a mapping of settings at the top level, not ${found}`,
    ]);
  }
  return document as ConfigDocument;
}

/** Reads and parses a configuration file (see parseConfigText). */
export function readConfigFile(file: string): ConfigDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read ${file}: ${messageOf(error)}`]);
  }
  return parseConfigText(text, file);
}
