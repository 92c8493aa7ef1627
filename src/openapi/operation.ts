/**
 * The shape of one documented API operation. The tables in
 * `operations-*.ts` list every route of the auth API with the zod schemas its
 * handler validates and answers with; `document.ts` turns them into OpenAPI.
 */
import type * as z from 'zod/mini';
import type { ErrorCode } from '../errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The route credential (contract §0.3). */
export type RouteCredential =
  | 'none'
  | 'access'
  | 'ephemeral:login'
  | 'ephemeral:registration'
  | 'ephemeral:mfa'
  | 'refresh';

export interface Operation {
  method: HttpMethod;
  /** Hono path with `:param` segments, exactly as registered. */
  path: string;
  summary: string;
  credential: RouteCredential;
  /** Role gate (contract §0.3): 403 `forbidden` without it. */
  role?: 'admin:read' | 'admin:write';
  /** `required`: always (+SU); `if-capable`: once the user has a passkey or TOTP (+SU?). */
  stepUp?: 'required' | 'if-capable';
  /** The JSON body schema the handler validates (`{}` stands in for an absent body). */
  body?: z.ZodMiniType;
  /** An `application/x-www-form-urlencoded` body instead of JSON (the OAuth provider's RFC endpoints). */
  formBody?: z.ZodMiniType;
  /**
   * Statuses this route answers in the OAuth RFC format `{error, error_description}` (RFC 6749 §5.2) as well as
   * in the envelope: the provider's client-facing endpoints.
   */
  rfcErrors?: (400 | 401 | 403)[];
  /** The query-string schema the handler validates. */
  query?: z.ZodMiniType;
  /** Optional request headers the handler reads (OpenAPI header parameters). */
  headers?: { name: string; description: string; schema: Record<string, unknown> }[];
  /** Success statuses; `null` means no body (204). */
  ok: { status: 200 | 201 | 204; schema: z.ZodMiniType | null; description?: string }[];
  /** Codes this route raises beyond the ones every route can answer (§0.4). */
  errors?: ErrorCode[];
  description?: string;
}

type OkInput = z.ZodMiniType | Operation['ok'];

/** `op('POST', '/login', 'Start a sign-in', 'none', LoginStartResponse, {...})`. */
export function op(
  method: HttpMethod,
  path: string,
  summary: string,
  credential: RouteCredential,
  ok: OkInput,
  extra: Omit<Operation, 'method' | 'path' | 'summary' | 'credential' | 'ok'> = {},
): Operation {
  return {
    method,
    path,
    summary,
    credential,
    ok: Array.isArray(ok) ? ok : [{ status: 200, schema: ok as z.ZodMiniType }],
    ...extra,
  };
}
