#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (root, Node 20, no GPU) for neura: the Debian packages of the software
# WebGPU adapter (Mesa llvmpipe through OpenGL ES, see CONTRIBUTING.md, platform notes), pnpm 10, the workspace's
# dependencies. Idempotent and quiet when everything is already there.
#   --with-chromium  also Debian's `chromium` (~30 s to install; its SwiftShader runs WebGPU headless) for the
#                    browser check `pnpm web:check`; CI (.ci/run) passes it. Without it: apt-get install chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."

apt_pkgs=(libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri)
[[ ${1:-} == --with-chromium ]] && apt_pkgs+=(chromium)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]} (software WebGPU adapter${1:+, headless Chromium})"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# pnpm 10: corepack cannot download here, and pnpm 11 crashes on Node 20 (CONTRIBUTING.md, platform notes)
if ! command -v pnpm >/dev/null || [[ $(pnpm --version) != 10.* ]]; then
  echo "setup: installing pnpm@10"
  npm install -g --silent pnpm@10 >/dev/null
fi

# the workspace: skip when node_modules already matches the lockfile
stamp=node_modules/.neura-setup
if [[ ! -f $stamp || pnpm-lock.yaml -nt $stamp ]]; then
  pnpm install --frozen-lockfile --reporter=silent
  touch "$stamp"
fi
