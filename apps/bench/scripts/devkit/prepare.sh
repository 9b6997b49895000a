#!/usr/bin/env bash
# Packs what a run on the H200 machine needs into .devkit/ at the project root (git-ignored, ~29 MiB):
# node (xz), the Vulkan loader and libglvnd (.deb files), and the `webgpu` package (dawn.node, linux-x64, xz).
# For a Linux GPU machine without Node.js or a Vulkan loader (and no network), e.g. a cloud H200 box with only the
# NVIDIA driver. Usage, from the project root after `pnpm install`:  bash apps/bench/scripts/devkit/prepare.sh
# (`pnpm bench:device` runs it). Then put one bundled .mjs (with `webgpu` external) inside .devkit/, copy the
# folder .devkit with the working tree to that machine, and run there:  source .devkit/enter.sh && node .devkit/X.mjs
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
kit=.devkit
mkdir -p "$kit/debs"
grep -qx '/.devkit/' .git/info/exclude 2>/dev/null || echo '/.devkit/' >> .git/info/exclude

# node: the very binary this machine runs, so versions match
node_bin=$(readlink -f "$(command -v node)")
stamp="$kit/node.version"
if [[ ! -f $kit/node.xz || "$(cat "$stamp" 2>/dev/null)" != "$(node --version)" ]]; then
  xz -T0 -6 -c "$node_bin" > "$kit/node.xz"
  node --version > "$stamp"
fi

# Vulkan loader and libglvnd: the GPU machine has the NVIDIA driver (whose Vulkan ICD needs libglvnd) but neither
debs=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
if [[ $(ls "$kit/debs"/*.deb 2>/dev/null | wc -l) -lt ${#debs[@]} ]]; then
  lists=$(mktemp -d); mkdir -p "$lists/partial"
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists="$lists")
  apt-get "${o[@]}" update -qq >/dev/null
  (cd "$kit/debs" && apt-get "${o[@]}" download "${debs[@]}" >/dev/null 2>&1)
fi

# webgpu package (Dawn): resolve it the way Node would from the workspace root or any package
pkg=$(node -e "
const {createRequire}=require('module'); const path=require('path'); const fs=require('fs');
const tryFrom=(d)=>{try{return path.dirname(createRequire(path.join(d,'x.js')).resolve('webgpu/package.json'))}catch{return ''}};
let p=tryFrom(process.cwd());
if(!p){for(const base of ['packages','apps']){if(!fs.existsSync(base))continue;for(const d of fs.readdirSync(base)){p=tryFrom(path.join(process.cwd(),base,d));if(p)break}if(p)break}}
process.stdout.write(p)")
if [[ -z $pkg ]]; then echo "prepare.sh: no 'webgpu' package found; run pnpm install first" >&2; exit 1; fi
dst="$kit/node_modules/webgpu"
rm -rf "$dst"; mkdir -p "$dst/dist/linux-x64"
cp "$pkg/package.json" "$pkg/index.js" "$dst/"
[[ -f $pkg/types.d.ts ]] && cp "$pkg/types.d.ts" "$dst/"
xz -T0 -6 -c "$pkg/dist/linux-x64/dawn.node" > "$dst/dist/linux-x64/dawn.node.xz"
cp "$(dirname "$0")/enter.sh" "$kit/enter.sh"
du -sh "$kit" | awk '{print "prepare.sh: .devkit ready (" $1 "); copy it to the GPU machine and start the command with: source .devkit/enter.sh &&"}'
