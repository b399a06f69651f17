import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText, readConfigFile } from './config-file.js';
import { ConfigError } from './config-issues.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kfx-config-file-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readConfigFile', () => {
  it('returns the top-level mapping; an empty file is an empty mapping', async () => {
    const file = join(dir, 'good.yaml');
    await writeFile(file, 'port: 9443\ntls:\n  certFile: /c\n');
    expect(readConfigFile(file)).toEqual({ port: 9443, tls: { certFile: '/c' } });
    await writeFile(file, '# nothing yet\n');
    expect(readConfigFile(file)).toEqual({});
  });

  it('throws a ConfigError naming the file and what is wrong', async () => {
    const missing = join(dir, 'missing.yaml');
    expect(() => readConfigFile(missing)).toThrow(
      new RegExp(`\\n  cannot read ${missing}: ENOENT`),
    );
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'a: [b\n');
    expect(() => readConfigFile(broken)).toThrow(
      new RegExp(`\\n  ${broken} is not valid YAML: .* at line 2, column 1:$`),
    );
    await writeFile(broken, 'a: 1\na: 2\n');
    expect(() => readConfigFile(broken)).toThrow(/is not valid YAML: .*[Mm]ap keys must be unique/);
    expect(() => readConfigFile(broken)).toThrow(ConfigError);
  });

  it('refuses a document that is not a mapping, saying what it is', () => {
    expect(() => parseConfigText('- a\n- b\n', 'list.yaml')).toThrow(
      'list.yaml: expected a mapping of settings at the top level, not a list',
    );
    expect(() => parseConfigText('just text\n', 'text.yaml')).toThrow(
      'text.yaml: expected a mapping of settings at the top level, not a string',
    );
  });
});
