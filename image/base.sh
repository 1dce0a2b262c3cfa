#!/usr/bin/env bash
# Makes the image's base root file system, as a tar file, from Debian 12 packages alone: the C and
# C++ runtime Node.js links against (libc6, libstdc++6, libgcc-s1), time zones, /etc/services and
# Debian's base files, at the versions of image/base.lock, each unpacked with dpkg-deb. Nothing
# else: no shell, no package manager, no setuid program. A debootstrap `minbase` root holds all of
# that and more (about 75 MB once trimmed, against about 20 here) and would take the image past its
# 200 MB target; the image runs one program, whose libraries are exactly these.
#
# The packages are listed for scanners as distroless images do (/var/lib/dpkg/status.d/<package>),
# the service's user and group are added (image/versions.env), and /data (the volume) belongs to it.
#
#   image/base.sh OUT.tar [--lock]     --lock: write the versions taken back into image/base.lock
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
source "$here/versions.env"
out="${1:?usage: image/base.sh OUT.tar [--lock]}"
lock_mode="${2:-}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/root"
apt_opts=(-q -o APT::Sandbox::User=root)

# Each locked version; one the mirror no longer has is replaced by the mirror's newer one (never an
# older one), said on one line, so that a clean machine can still build after a security update.
taken=()
while IFS='=' read -r pkg version; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  if (cd "$work/debs" && apt-get download "${apt_opts[@]}" "$pkg=$version" >/dev/null 2>&1); then
    taken+=("$pkg=$version")
    continue
  fi
  candidate="$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')"
  if [[ -z "$candidate" || "$candidate" == "(none)" ]] || dpkg --compare-versions "$candidate" lt "$version"; then
    echo "error: Debian package $pkg $version cannot be downloaded and the mirror has no newer version (run apt-get update?)" >&2
    exit 1
  fi
  echo "warning: $pkg $version is no longer on the Debian mirror; taking $candidate (npm run image -- --lock-base records it)" >&2
  (cd "$work/debs" && apt-get download "${apt_opts[@]}" "$pkg=$candidate" >/dev/null)
  taken+=("$pkg=$candidate")
done <"$here/base.lock"

root="$work/root"
mkdir -p "$root/var/lib/dpkg/status.d"
for deb in "$work/debs"/*.deb; do
  dpkg-deb -x "$deb" "$root"
  name="$(dpkg-deb -f "$deb" Package)"
  { dpkg-deb -f "$deb" Package Version Architecture Source Maintainer Installed-Size Description | sed '/^Description/,$d'
    echo "Status: install ok installed"; } >"$root/var/lib/dpkg/status.d/$name"
done

# What one program needs no copy of: manuals, translations of other programs, packaging notes.
# The copyright files stay (/usr/share/doc/*/copyright).
find "$root/usr/share/doc" -type f ! -name copyright -delete
find "$root/usr/share/doc" -type l -delete
rm -rf "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/lintian" "$root/usr/share/locale" \
  "$root/usr/share/common-licenses" "$root/etc/update-motd.d" "$root/usr/lib/x86_64-linux-gnu/gconv"

# The loader's cache, users, name lookups by files, the temporary folder and the data volume.
printf 'include /etc/ld.so.conf.d/*.conf\n' >"$root/etc/ld.so.conf"
ldconfig -r "$root"
cat >"$root/etc/passwd" <<EOF
root:x:0:0:root:/root:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
cqs:x:$APP_UID:$APP_GID:contract-query-service:/app:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<EOF
root:x:0:
nogroup:x:65534:
cqs:x:$APP_GID:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\nnetworks: files\nprotocols: files\nservices: files\n' >"$root/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
ln -sf /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"
echo "Etc/UTC" >"$root/etc/timezone"
mkdir -p "$root/tmp" "$root/data" "$root/app" "$root/root"
chmod 1777 "$root/tmp"
chmod 700 "$root/root"
chown "$APP_UID:$APP_GID" "$root/data"
chmod 750 "$root/data"

printf '%s\n' "${taken[@]}" | sort >"$work/taken"
tar --sort=name --numeric-owner --mtime='2023-06-10 00:00:00Z' -C "$root" -cf "$out.partial" .
mv "$out.partial" "$out"
cp "$work/taken" "$out.packages"
if [[ "$lock_mode" == "--lock" ]]; then
  { sed -n '/^#/p' "$here/base.lock"; cat "$work/taken"; } >"$here/base.lock.new"
  mv "$here/base.lock.new" "$here/base.lock"
  echo "image/base.lock: $(wc -l <"$work/taken") packages recorded"
fi
