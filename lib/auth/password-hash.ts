// Password hashing with scrypt (memory-hard, node:crypto, per-password random salt) and a
// constant-time compare. A stored hash names its own parameters, so the cost can be raised later.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt parameters, named as node:crypto names them. */
export interface ScryptParams {
  cost: number;
  blockSize: number;
  parallelization: number;
}

/** 2^15, r 8, p 1: 32 MiB per hash; measured in docs/auth.md. */
export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ cost: 32768, blockSize: 8, parallelization: 1 });

const KEY_BYTES = 64;
const SALT_BYTES = 16;
/** Refuse to verify hashes asking for more than this: a tampered row must not be able to exhaust memory. */
const MAX_COST = 2 ** 20;
const MAX_BLOCK_SIZE = 32;
const MAX_PARALLELIZATION = 16;
const PREFIX = 'scrypt';

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // NFKC so the same password typed on different keyboards/OSes hashes the same.
  const normalized = password.normalize('NFKC');
  const { cost: N, blockSize: r, parallelization: p } = params;
  return new Promise((resolve, reject) => {
    scrypt(normalized, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** True for a power of two of at least 2 (scrypt's requirement on N). */
export function isScryptCost(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= MAX_COST && (value & (value - 1)) === 0;
}

/** Hashes a password: `scrypt$N$r$p$<salt base64url>$<key base64url>`. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return [PREFIX, params.cost, params.blockSize, params.parallelization, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: unknown): ParsedHash | undefined {
  if (typeof stored !== 'string') return undefined;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [cost, blockSize, parallelization] = parts.slice(1, 4).map(Number);
  if (!isScryptCost(cost)) return undefined;
  if (!Number.isInteger(blockSize) || blockSize < 1 || blockSize > MAX_BLOCK_SIZE) return undefined;
  if (!Number.isInteger(parallelization) || parallelization < 1 || parallelization > MAX_PARALLELIZATION) return undefined;
  const salt = Buffer.from(parts[4], 'base64url');
  const key = Buffer.from(parts[5], 'base64url');
  if (salt.length === 0 || key.length !== KEY_BYTES) return undefined;
  return { params: { cost, blockSize, parallelization }, salt, key };
}

/** True when the password matches the stored hash. A malformed hash never matches (and never throws). */
export async function verifyPassword(password: string, stored: unknown): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed || typeof password !== 'string') return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/** True when a stored hash was made with other parameters than the current ones (rehash on next login). */
export function needsRehash(stored: unknown, params: ScryptParams): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  const p = parsed.params;
  return p.cost !== params.cost || p.blockSize !== params.blockSize || p.parallelization !== params.parallelization;
}
