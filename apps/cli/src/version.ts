// The version this binary was released as (changesets writes it into package.json); bundled in.
import manifest from '../package.json' with { type: 'json' };

export const VERSION: string = manifest.version;
