// `mcp`, checked and resolved in one pass at start-up: `true`/`false` or an object of known keys only,
// `write` a boolean, `allowedHosts` and `allowedOrigins` lists of hostnames. Problems are named by path,
// like every other config problem.
import { isIPv6 } from 'node:net';
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig } from '../config/types';
import { isRecord } from '../util/is-record';

const MCP_KEYS = ['write', 'allowedHosts', 'allowedOrigins'];

/** The MCP endpoint as configured; undefined when it is off. */
export interface ResolvedMcpOptions {
  /** Whether the write tools are offered (to callers whose rules let them write). */
  readonly write: boolean;
  /** Hostnames the Host header may name; undefined: any. */
  readonly allowedHosts?: readonly string[];
  /** Hostnames a browser's Origin may name; undefined: those of `security.trustedOrigins`. */
  readonly allowedOrigins?: readonly string[];
}

/**
 * A list of hostnames at `path`, or undefined (with a problem) when it is not one. A bare IPv6 address is
 * bracketed: the guards compare the Host and Origin headers' hostnames, which bracket it (`[::1]`).
 */
function hostnames(path: string, value: unknown, problems: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push(`${path}: must be an array of hostnames`);
    return undefined;
  }
  value.forEach((entry: unknown, index) => {
    // A hostname, without scheme or port: the SDK's guards compare hostnames only.
    if (typeof entry !== 'string' || entry.trim() === '' || /[/\s]/.test(entry)) problems.push(`${path}[${index}]: must be a hostname (no scheme, path or spaces)`);
  });
  return (value as unknown[]).map((entry) => (typeof entry === 'string' && isIPv6(entry) ? `[${entry}]` : (entry as string)));
}

/** Checks and resolves `config.mcp`; the options are undefined when MCP is off. */
export function parseMcpOptions(config: ContentConfig): ParsedOptions<ResolvedMcpOptions | undefined> {
  const raw: unknown = config.mcp;
  if (raw === undefined || raw === false) return { problems: [], options: undefined };
  if (raw === true) return { problems: [], options: { write: false } };
  if (!isRecord(raw)) return { problems: ['mcp: must be true, false or an object { write, allowedHosts, allowedOrigins }'], options: undefined };
  const problems: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!MCP_KEYS.includes(key)) problems.push(`mcp.${key}: unknown option`);
  }
  if (raw.write !== undefined && typeof raw.write !== 'boolean') problems.push('mcp.write: must be a boolean');
  const allowedHosts = hostnames('mcp.allowedHosts', raw.allowedHosts, problems);
  const allowedOrigins = hostnames('mcp.allowedOrigins', raw.allowedOrigins, problems);
  return {
    problems,
    options: { write: raw.write === true, ...(allowedHosts && { allowedHosts }), ...(allowedOrigins && { allowedOrigins }) },
  };
}
