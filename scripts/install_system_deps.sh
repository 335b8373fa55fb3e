#!/usr/bin/env bash
# Debian packages the browser tests and `make serve` need: Chromium (driven by Playwright,
# never downloaded by it), a CJK font so Japanese renders, an emoji font, and nginx (the
# proxy in front of several app processes: `make serve` runs its own nginx as the current
# user, with its own config; it does not use the system's nginx service).
# Installed only when missing and only as root; otherwise the tests that need them skip and
# say why.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
fc-list 2>/dev/null | grep -qi "noto sans cjk" || need+=(fonts-noto-cjk)
fc-list 2>/dev/null | grep -qi "noto color emoji" || need+=(fonts-noto-color-emoji)
[ -x /usr/sbin/nginx ] || need+=(nginx)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "note: not root or no apt-get; missing ${need[*]}: the tests that need them will be skipped" >&2
  exit 0
fi
echo "installing ${need[*]} (apt-get)" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" fontconfig >/dev/null
