/** One RSA key pair per test process, so each in-memory API skips key generation. */
import { generateRsaPem } from '../../src/crypto/keys.js';

let cached: Promise<{ privatePem: string; publicPem: string }> | null = null;
export const testSigningKey = () => (cached ??= generateRsaPem());
