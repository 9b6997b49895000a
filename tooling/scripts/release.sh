#!/usr/bin/env bash
# release (`pnpm release [--publish] [--provenance]`): versions the seven @neura/* packages from the pending
# changesets, builds, runs pack-check (publint, attw, a fresh consumer project) on the tarballs and publishes exactly
# those tarballs. Default is a dry run in a temporary copy of the working tree (nothing here changes, `npm publish
# --dry-run`), so CI and a laptop can run it; `--publish` does it for real in this checkout (see CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
pkgs=(ir egraph autograd optim wgsl-kernels runtime-webgpu nn) # dependency order: each after what it imports
publish=false
provenance=()
for arg in "$@"; do
  case $arg in
    --dry-run) publish=false ;;
    --publish) publish=true ;;
    --provenance) provenance=(--provenance) ;;
    *) echo "release: unknown argument '$arg' (expected --dry-run, --publish, --provenance)" >&2; exit 2 ;;
  esac
done
t0=$SECONDS
say() { echo "release: $* ($((SECONDS - t0)) s)"; }

# every package must be publishable with provenance: public, a repository naming its directory, a license
node - "${pkgs[@]}" <<'JS'
const bad = [];
for (const p of process.argv.slice(2)) {
  const j = require(`${process.cwd()}/packages/${p}/package.json`);
  const dir = `packages/${p}`;
  if (j.private) bad.push(`${j.name} is private`);
  if (j.publishConfig?.access !== 'public') bad.push(`${j.name}: publishConfig.access is not "public"`);
  if (!/^git\+https:\/\/github\.com\/.+\.git$/.test(j.repository?.url ?? '')) bad.push(`${j.name}: repository.url is not a git+https GitHub URL (provenance needs one)`);
  if (j.repository?.directory !== dir) bad.push(`${j.name}: repository.directory is not "${dir}"`);
  if (!j.license) bad.push(`${j.name}: no license`);
}
if (bad.length) { console.error(`release: not publishable:\n  ${bad.join('\n  ')}`); process.exit(1); }
JS

pending=$(find .changeset -maxdepth 1 -name '*.md' ! -name README.md | wc -l)
if $publish; then
  [[ -z $(git status --porcelain) ]] || { echo "release: --publish needs a clean working tree (commit or remove your changes)" >&2; exit 1; }
  ((pending > 0)) || { echo "release: no pending changesets in .changeset/, nothing to release" >&2; exit 1; }
  work=$root
else
  # the dry run works on a copy of the working tree (tracked and untracked, not ignored files) with its own install
  work=$(mktemp -d /tmp/neura-release.XXXXXX)
  [[ ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do if [[ -e $f ]]; then printf '%s\0' "$f"; fi; done |
    tar --null -T - -c | tar -x -C "$work"
  (cd "$work" && pnpm install --frozen-lockfile --prefer-offline --reporter=silent)
  say "dry run in $work (KEEP=1 keeps it)"
fi
cd "$work"

before=$(node -p "require('./packages/nn/package.json').version")
if ((pending > 0)); then
  pnpm exec changeset version >/dev/null
  # the lockfile must still hold after the bump (workspace:^ links carry no version, so it should)
  pnpm install --frozen-lockfile --prefer-offline --reporter=silent
else
  say "no pending changesets: packing $before as it is"
fi
version=$(node -p "require('./packages/nn/package.json').version")
for p in "${pkgs[@]}"; do
  v=$(node -p "require('./packages/$p/package.json').version")
  [[ $v == "$version" ]] || { echo "release: @neura/$p is $v, @neura/nn $version: the fixed group drifted" >&2; exit 1; }
  if [[ -f packages/$p/CHANGELOG.md ]]; then printf '  @neura/%-15s %s -> %s  CHANGELOG.md %s bytes\n' "$p" "$before" "$v" "$(wc -c <"packages/$p/CHANGELOG.md")"; fi
done
say "versioned $before -> $version"

# build, pack and check the tarballs; pack-check leaves them in $work/.release for publishing
rm -rf .release && mkdir .release
NEURA_PACK_OUT=$work/.release bash tooling/scripts/pack-check.sh
say "pack-check passed"

if $publish; then
  git add -A && git commit -qm "Release v$version" -m "Versions and CHANGELOGs from the pending changesets (pnpm release --publish)."
fi
for p in "${pkgs[@]}"; do
  tgz=.release/neura-$p-$version.tgz
  [[ -f $tgz ]] || { echo "release: pack-check left no $tgz" >&2; exit 1; }
  if $publish; then
    npm publish "$tgz" --access public "${provenance[@]}"
  else
    npm publish "$tgz" --access public --dry-run "${provenance[@]}" >.release/npm.log 2>&1 || { cat .release/npm.log; exit 1; }
    echo "  npm publish --dry-run: $(grep -E '^\+ ' .release/npm.log) ($(grep -Eo 'total files: *[0-9]+' .release/npm.log), $(grep -Eo 'package size: *[0-9.]+ [kM]?B' .release/npm.log))"
  fi
done
if $publish; then
  pnpm exec changeset tag
  say "published v$version; now: git push --follow-tags"
else
  say "dry run done: v$version would be published (nothing here changed; --publish does it)"
fi
