// Options whose feature is typed but not built in this version. Configuring one is a ConfigError, so a
// host never believes it has uploads or a cache when it has not; a feature deletes its line here.
import type { ContentConfig } from './types';

const NOT_BUILT = 'not supported yet in this version of content-router';

/** One problem for every configured option that names a feature not built yet. */
export function unsupportedOptions(config: ContentConfig): string[] {
  const problems: string[] = [];
  if (config.docs !== undefined && config.docs !== false) problems.push(`docs: ${NOT_BUILT} (OpenAPI and Swagger UI)`);
  return problems;
}
