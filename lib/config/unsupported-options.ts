// Options whose feature is typed but not built in this version. Configuring one is a ConfigError, so a
// host never believes it has uploads, a cache or rate limiting when it has not; a feature deletes its line here.
import type { ContentConfig } from './types';

const NOT_BUILT = 'not supported yet in this version of content-router';

/** One problem for every configured option that names a feature not built yet. */
export function unsupportedOptions(config: ContentConfig): string[] {
  const problems: string[] = [];
  if (config.security !== undefined) problems.push(`security: ${NOT_BUILT} (rate limiting)`);
  if (config.uploads !== undefined) problems.push(`uploads: ${NOT_BUILT} (file uploads)`);
  if (config.realtime !== undefined && config.realtime !== false) problems.push(`realtime: ${NOT_BUILT} (SSE and WebSocket events)`);
  if (config.endpoints !== undefined && !(Array.isArray(config.endpoints) && config.endpoints.length === 0)) {
    problems.push(`endpoints: ${NOT_BUILT} (custom endpoints)`);
  }
  (Array.isArray(config.collections) ? config.collections : []).forEach((c, i) => {
    if (c && typeof c === 'object' && c.cache !== undefined) problems.push(`collections[${i}].cache: ${NOT_BUILT} (response caching)`);
  });
  return problems;
}
