// defineConfig: an identity function whose only job is to give config files full type inference.
import type { ContentConfig } from './types';

/** Returns the config unchanged; use it so editors check and complete the config object. */
export function defineConfig<T extends ContentConfig>(config: T): T {
  return config;
}
