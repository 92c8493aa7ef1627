/** Types of scripts/bundle-client.mjs (the browser bundle of svc-auth/client). */
export declare function bundleClient(opts?: {
  outfile?: string;
}): Promise<{ code: string; bytes: number; gzipBytes: number }>;
