#!/usr/bin/env bash
# Debian packages the browser tests and `make serve` need: Chromium (driven by Playwright,
# never downloaded by it), a CJK font so Japanese renders, an emoji font, and nginx (the
# proxy in front of several app processes: `make serve` runs its own nginx as the current
# user, with its own config; it does not use the system's nginx service), redis-server (the
# live classes `make serve`'s workers share: started by it on loopback, not as the system's
# service, which Debian's package also enables), and Node.js (its
# own test runner, `node --test`, checks the browser's JavaScript: tests/test_web_js.py) with
# npm (`make test` runs `npm ci`: axe-core for tests/browser/test_accessibility.py).
# Installed only when missing and only as root. Without root (or apt-get) the tests that need
# them skip and say why; under BPEVIZ_REQUIRE_BROWSER=1 (CI, .ci/run) this script fails
# instead, so CI never passes without its browser tests.
set -euo pipefail
chromium="${BPEVIZ_CHROMIUM:-/usr/bin/chromium}"  # another path only to test this script
need=()
[ -x "$chromium" ] || need+=(chromium)
# grep reads the whole list (no -q): with pipefail, fc-list killed by SIGPIPE when grep -q
# stopped early made an installed font look missing.
fc-list 2>/dev/null | grep -i "noto sans cjk" >/dev/null || need+=(fonts-noto-cjk)
fc-list 2>/dev/null | grep -i "noto color emoji" >/dev/null || need+=(fonts-noto-color-emoji)
[ -x /usr/sbin/nginx ] || need+=(nginx)
[ -x "${BPEVIZ_REDIS_SERVER:-/usr/bin/redis-server}" ] || need+=(redis-server)  # another path only to test this script
command -v "${BPEVIZ_NODE:-node}" >/dev/null || need+=(nodejs)  # BPEVIZ_NODE: only to test this script
command -v "${BPEVIZ_NPM:-npm}" >/dev/null || need+=(npm)  # installs axe-core (make test: npm ci)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  if [ -n "${BPEVIZ_REQUIRE_BROWSER:-}" ] && [ "${BPEVIZ_REQUIRE_BROWSER}" != 0 ]; then
    echo "error: missing ${need[*]} and cannot install them (not root or no apt-get);" \
      "BPEVIZ_REQUIRE_BROWSER=1 requires the browser tests to run" >&2
    exit 1
  fi
  echo "note: not root or no apt-get; missing ${need[*]}: the tests that need them will be skipped" >&2
  exit 0
fi
echo "installing ${need[*]} (apt-get)" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" fontconfig >/dev/null
