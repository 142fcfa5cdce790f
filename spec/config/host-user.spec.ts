// The host's req.user as access rules and hooks see it through the default auth.fromRequest: a plain
// object with a string id, whether the host's session handed over a hydrated Mongoose document or a lean
// one, and without the host's secrets (password hashes, salts, tokens).
import type { Request } from 'express';
import mongoose from 'mongoose';
import { resolveConfig } from '../../lib/config/resolve-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const fromRequestOf = (auth?: Parameters<typeof resolveConfig>[0]['auth']) => resolveConfig({ db, auth }).fromRequest;
const withUser = (user: unknown) => ({ user }) as unknown as Request;

// A model on a connection that never connects: documents are built in memory, as deserializeUser's are.
const connection = mongoose.createConnection();
const HostUser = connection.model(
  'HostUser',
  new mongoose.Schema({ email: String, role: String, passwordHash: String, salt: String, resetPasswordToken: String, profile: { name: String } }),
);
afterAll(() => connection.close());

describe('the default auth.fromRequest', () => {
  it('unwraps a hydrated Mongoose document: its fields (role) count, its id is a string', () => {
    const doc = new HostUser({ email: 'ed@example.com', role: 'editor', passwordHash: 'scrypt$...', profile: { name: 'Ed' } });
    const user = fromRequestOf()(withUser(doc));
    expect(user).toEqual({ id: doc._id.toHexString(), _id: doc._id, email: 'ed@example.com', role: 'editor', profile: { name: 'Ed' } });
    // A plain object: no document internals for rules and hooks to trip on.
    expect(Object.getPrototypeOf(user)).toBe(Object.prototype);
    expect(user).not.toHaveProperty('$__');
  });

  it("keeps the host's secrets away from rules and hooks: password, hashes, salts, tokens, secrets, API keys", () => {
    const lean = {
      _id: new mongoose.Types.ObjectId(),
      email: 'ann@example.com',
      role: 'admin',
      password: 'plain',
      passwordHash: 'h',
      hash: 'h',
      salt: 's',
      password_reset_token: 't',
      refreshTokens: ['r'],
      apiKey: 'k',
      api_key: 'k',
      totpSecret: 's',
      privateKey: 'p',
      hashtagCount: 3,
    };
    const user = fromRequestOf()(withUser(lean));
    expect(user).toEqual({ id: lean._id.toHexString(), _id: lean._id, email: 'ann@example.com', role: 'admin' });
    const doc = new HostUser({ email: 'x@example.com', passwordHash: 'h', salt: 's', resetPasswordToken: 't' });
    expect(Object.keys(fromRequestOf()(withUser(doc))!).sort()).toEqual(['_id', 'email', 'id']);
  });

  it('is null without a user or without an id', () => {
    expect(fromRequestOf()(withUser(undefined))).toBeNull();
    expect(fromRequestOf()(withUser({ email: 'no-id@example.com' }))).toBeNull();
  });

  it('leaves a plain user without secrets as it was, with the id as a string', () => {
    expect(fromRequestOf()(withUser({ id: 42, role: 'editor', team: { id: 't1' } }))).toEqual({ id: '42', role: 'editor', team: { id: 't1' } });
  });
});

describe('a host auth.fromRequest', () => {
  it('gets a Mongoose document unwrapped too, and decides itself what else the user carries', () => {
    const doc = new HostUser({ email: 'ed@example.com', role: 'editor', passwordHash: 'h' });
    const user = fromRequestOf({ fromRequest: (req) => (req as Request & { user: typeof doc }).user as never })(withUser(doc));
    expect(user).toMatchObject({ id: doc._id.toHexString(), role: 'editor', passwordHash: 'h' });
    expect(user).not.toHaveProperty('$__');
    const mapped = fromRequestOf({ fromRequest: () => ({ id: 7 as unknown as string, role: 'admin' }) })(withUser(doc));
    expect(mapped).toEqual({ id: '7', role: 'admin' });
  });
});
