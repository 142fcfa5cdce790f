// Names of the Mongo collections an auth collection keeps its credentials in, beside its records.
// One place, so config validation can refuse a collection slug that would collide with them.

export interface AuthStoreNames {
  refreshTokens: string;
  apiKeys: string;
  loginFailures: string;
}

/** Refresh tokens, API keys and login failures of the auth collection `slug`. */
export function authStoreNames(slug: string): AuthStoreNames {
  return {
    refreshTokens: `${slug}_refresh_tokens`,
    apiKeys: `${slug}_api_keys`,
    loginFailures: `${slug}_login_failures`,
  };
}
