// Preloaded (`bun --preload`) into a server of bench/profile-bun.ts: SIGTERM exits cleanly, so
// `--cpu-prof` writes its profile (a process killed by the signal writes none).
process.on('SIGTERM', () => process.exit(0));
