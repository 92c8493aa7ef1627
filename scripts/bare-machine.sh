#!/usr/bin/env bash
# Proves the README's two commands on a bare machine: a fresh clone of HEAD,
# an empty HOME (no npm cache, no user config), CHROMIUM_PATH unset and no
# Chromium reachable on PATH (every system bin directory is mirrored without
# chromium/chrome binaries). Runs `npm ci && npm test`, then `npm ci && npm start`
# until the demo answers, and prints the time of each.
#   npm run test:bare                 (as long as npm test plus two npm ci)
#   npm run test:bare -- --start-only (only `npm ci && npm start`)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/svc-bare.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "bare: fresh clone of $(git -C "$repo" rev-parse --short HEAD) in $work"
git clone --quiet "$repo" "$work/svc"
mkdir -p "$work/home" "$work/bin"

# A PATH with everything the system has except a browser.
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  [ -d "$dir" ] || continue
  for f in "$dir"/*; do
    name="$(basename "$f")"
    case "$name" in chromium*|chrome*|google-chrome*) continue ;; esac
    [ -x "$f" ] && [ ! -e "$work/bin/$name" ] && ln -s "$f" "$work/bin/$name"
  done
done
clean_env=(env -i "HOME=$work/home" "PATH=$work/bin" "TERM=${TERM:-dumb}" "CI=${CI:-}")
if "${clean_env[@]}" sh -c 'command -v chromium || command -v chromium-browser || command -v google-chrome' >/dev/null; then
  echo "bare: a Chromium is still on the clean PATH; cannot prove anything" >&2
  exit 2
fi

cd "$work/svc"
if [ "${1:-}" != "--start-only" ]; then
t0=$(date +%s)
echo "bare: npm ci && npm test"
# The exit status goes through a file: with pipefail, `pipeline || true` would report 0 for a failed run.
{ "${clean_env[@]}" bash -c 'npm ci && npm test' 2>&1; echo $? > "$work/status"; } | tee "$work/test.log" | grep -E '^(npm test:|== |conformance |chromium:)' || true
status=$(cat "$work/status")
cp "$work/test.log" /tmp/svc-bare-last-test.log
t1=$(date +%s)
echo "bare: npm ci && npm test exited $status in $((t1 - t0)) s"
[ "$status" -eq 0 ] || { grep -E "FAIL|×" "$work/test.log" | head -20; tail -40 "$work/test.log"; echo "bare: the whole log is in /tmp/svc-bare-last-test.log"; exit 1; }
fi

echo "bare: npm ci && npm start"
port=$((20000 + RANDOM % 20000)); demo_port=$((port + 1))
setsid "${clean_env[@]}" PORT=$port DEMO_PORT=$demo_port bash -c 'npm ci --silent && exec npm start' >"$work/start.log" 2>&1 &
pid=$!
t2=$(date +%s)
for _ in $(seq 1 240); do
  grep -q 'svc is running' "$work/start.log" && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.5
done
code=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$demo_port/" || true)
t3=$(date +%s)
kill -TERM -- -$pid 2>/dev/null || true; wait $pid 2>/dev/null || true
sed -n '/svc is running/,/stop/p' "$work/start.log"
echo "bare: npm ci && npm start served the demo with HTTP $code after $((t3 - t2)) s"
[ "$code" = 200 ] || { cat "$work/start.log"; exit 1; }
[ "${1:-}" = "--start-only" ] && echo "bare: npm start passed" || echo "bare: both README commands passed"
