// The version this binary was released as (changesets writes it into package.json); bundled in.
import manifest from '../package.json' with { type: 'json' };

export const VERSION: string = manifest.version;

/** The image `npm run images` builds from this CLI (its entrypoint is kfx), at this version. */
export const CLI_IMAGE = `kfx/cli:${VERSION}`;
