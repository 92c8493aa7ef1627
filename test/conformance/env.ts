/**
 * The one configuration every conformance target boots with. Development
 * mode (dev signing keys, external delivery for service-token callers),
 * strict refresh reuse detection, a small lockout threshold so lockout cases
 * stay short, and a global limit high enough that only the cases about
 * limits meet one (each case uses its own trusted client IP).
 */
export const SERVICE_SECRET = 'conformance-service-token-0123456789abcdef';
export const OAUTH_SECRET_ENV = 'TESTOP_CLIENT_SECRET';
export const OAUTH_CLIENT_SECRET = 'conformance-provider-secret-0123456789abcdef';
export const APP_ORIGIN = 'http://localhost:3000';
export const APP_CALLBACK = `${APP_ORIGIN}/oauth/callback`;
/** Addresses granted `admin` on first verification (one per case file that needs an admin). */
export const OWNER_EMAILS = Array.from({ length: 12 }, (_, i) => `owner${i}@conformance.test`);
export const LOCKOUT_MAX_FAILURES = 3;

export function conformanceEnv(issuer: string, databaseUrl: string, oidcIssuer: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    ISSUER: issuer,
    DATABASE_URL: databaseUrl,
    API_SERVICE_TOKEN: SERVICE_SECRET,
    APP_NAME: 'svc conformance',
    DEFAULT_ROLES: 'user',
    AVAILABLE_ROLES: 'user,admin,admin:read,admin:write,support',
    LOGIN_METHODS: 'passkey,magic_link,email_otp,phone_otp,oauth',
    OWNER_EMAIL: OWNER_EMAILS.join(','),
    ACCESS_TOKEN_TTL: '15m',
    REFRESH_TOKEN_TTL: '1d',
    RATE_LIMIT: '1000',
    DELAY_AFTER: '0',
    RPID: 'localhost',
    ORIGINS: APP_ORIGIN,
    LOGIN_RESPONSE_FLOOR_MS: '0',
    LOCKOUT_POLICY: JSON.stringify({ maxFailures: LOCKOUT_MAX_FAILURES }),
    // The API's own sender prints to stdout; the cases read codes from `delivery` (external mode).
    DELIVERY_MODE: 'console',
    [OAUTH_SECRET_ENV]: OAUTH_CLIENT_SECRET,
    OAUTH_PROVIDERS: JSON.stringify([
      {
        id: 'testop',
        name: 'Test OP',
        clientId: 'svc-conformance-client',
        clientSecretEnv: OAUTH_SECRET_ENV,
        authorizationUrl: `${oidcIssuer}/auth`,
        tokenUrl: `${oidcIssuer}/token`,
        userInfoUrl: `${oidcIssuer}/me`,
        scopes: ['openid', 'email', 'profile'],
        redirectUris: [APP_CALLBACK],
        nameJsonPath: 'name',
      },
    ]),
  };
}
