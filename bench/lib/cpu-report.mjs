// Preloaded (`node --import ./bench/lib/cpu-report.mjs …`) into a server process of
// `bench/profile-sign-in.ts`: over the IPC channel it answers `cpu` with this
// process's `process.cpuUsage()` and exits cleanly on `exit` (so `--cpu-prof`
// writes its profile). Without an IPC channel it does nothing.
if (typeof process.send === 'function') {
  process.on('message', (m) => {
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
    else if (m === 'exit') process.exit(0);
  });
  process.channel?.unref?.();
}
