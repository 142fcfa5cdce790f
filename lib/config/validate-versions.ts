// `versions` of a collection or global, and the access rules that only mean something with it: checked
// once, so a host who configures history or drafts gets them, or is told why not.
import { isRecord } from '../util/is-record';
import { parseDuration } from '../util/duration';

const VERSIONS_KEYS = ['max', 'maxAge', 'drafts', 'coalesce'];

type Problems = string[];

/** `owner`: the collection's or global's config as given. `auth`: an auth collection (no history: its records hold credentials). */
export function checkVersions(path: string, owner: Record<string, unknown>, auth: boolean, problems: Problems): void {
  const { versions } = owner;
  if (owner.drafts !== undefined) problems.push(`${path}.drafts: drafts need versions: write versions: { drafts: true }`);
  const access = isRecord(owner.access) ? owner.access : {};
  const on = versions !== undefined && versions !== false;
  const drafts = on && isRecord(versions) && versions.drafts === true;
  if (!on) {
    for (const rule of ['publish', 'readDrafts', 'readVersions']) {
      if (access[rule] !== undefined) problems.push(`${path}.access.${rule}: needs versions${rule === 'readVersions' ? '' : ': { drafts: true }'}`);
    }
  } else if (!drafts) {
    for (const rule of ['publish', 'readDrafts']) if (access[rule] !== undefined) problems.push(`${path}.access.${rule}: needs versions: { drafts: true }`);
  }
  if (versions === undefined || typeof versions === 'boolean') {
    if (versions === true && auth) problems.push(`${path}.versions: not available on an auth collection (its records hold credentials)`);
    return;
  }
  if (!isRecord(versions)) {
    problems.push(`${path}.versions: must be true, false or { max, maxAge, drafts, coalesce }`);
    return;
  }
  if (auth) problems.push(`${path}.versions: not available on an auth collection (its records hold credentials)`);
  for (const key of Object.keys(versions)) {
    if (!VERSIONS_KEYS.includes(key)) problems.push(`${path}.versions.${key}: unknown option (expected ${VERSIONS_KEYS.join(', ')})`);
  }
  const { max, maxAge, drafts: draftsOption, coalesce } = versions;
  if (max !== undefined && !(typeof max === 'number' && Number.isSafeInteger(max) && max >= 0)) problems.push(`${path}.versions.max: must be an integer >= 0 (0 keeps all)`);
  if (maxAge !== undefined && parseDuration(maxAge) === undefined) problems.push(`${path}.versions.maxAge: must be a duration such as "30d", or a number of seconds`);
  if (coalesce !== undefined && coalesce !== 0 && parseDuration(coalesce) === undefined) problems.push(`${path}.versions.coalesce: must be a duration such as "5m", a number of seconds, or 0 (never coalesce)`);
  if (draftsOption !== undefined && typeof draftsOption !== 'boolean') problems.push(`${path}.versions.drafts: must be a boolean`);
  if (draftsOption === true && owner.softDelete === true) {
    problems.push(`${path}.versions: drafts and softDelete together are not supported yet (a draft of a record in the trash has no published state to return to)`);
  }
}
