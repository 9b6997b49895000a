#!/usr/bin/env bash
# node-matrix (`bash tooling/scripts/node-matrix.sh 22 24 [-- vitest args]`, part of CI): runs the unit tests under
# other Node majors than the one on PATH. Each Node comes from the npm registry as the `node-<platform>-<arch>`
# package (the binary the `node` npm package installs), kept in .cache/node/<major>/, so a second run is offline.
# Default vitest arguments: the whole `unit` project.
set -euo pipefail
cd "$(dirname "$0")/../.."
majors=()
while (($#)) && [[ $1 != -- ]]; do majors+=("$1"); shift; done
(($#)) && shift
args=("$@")
((${#args[@]})) || args=(run --project unit)
((${#majors[@]})) || { echo "node-matrix: name the Node majors to run, e.g. 22 24" >&2; exit 2; }
pkg=node-$(node -p 'process.platform')-$(node -p 'process.arch')
for major in "${majors[@]}"; do
  dir=.cache/node/$major
  bin=$dir/node_modules/$pkg/bin/node
  if [[ ! -x $bin ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    echo '{"private":true}' >"$dir/package.json"
    npm install --prefix "$dir" --no-save --no-audit --no-fund --prefer-offline --loglevel=error "$pkg@$major"
  fi
  t0=$SECONDS
  echo "node-matrix: Node $("$bin" --version): vitest ${args[*]}"
  # vitest's workers are started with process.execPath, so they run on this Node too
  "$bin" node_modules/vitest/vitest.mjs "${args[@]}"
  echo "node-matrix: Node $("$bin" --version) passed ($((SECONDS - t0)) s)"
done
