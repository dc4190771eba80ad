#!/bin/sh
# Builds the base image `badge-sim/node-base:local` from this machine's own parts: its Node.js
# and npm, a shell, the C libraries they link and the CA certificates. For machines that reach
# no container registry (CI here); elsewhere the Dockerfile's default base, node:20-bookworm-slim,
# is pulled as usual. Usage: container/build-local-base.sh [tag]
set -eu
tag=${1:-badge-sim/node-base:local}
node=$(command -v node)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/bin" "$root/etc/ssl/certs" \
  "$root/tmp" "$root/root" "$root/app"
chmod 1777 "$root/tmp"
cp "$(readlink -f "$node")" "$root/usr/local/bin/node"
cp -r "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
cp "$(readlink -f /bin/sh)" "$root/bin/sh"
mkdir -p "$root/usr/bin" && cp "$(readlink -f /usr/bin/env)" "$root/usr/bin/env" # npm's #! line
# The shared libraries node, sh and env load, at the paths the loader looks for them.
for lib in $( (ldd "$node"; ldd /bin/sh; ldd /usr/bin/env) | grep -o '/[^ ]*' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"
mkdir -p "$root/home/node" && chown 1000:1000 "$root/home/node"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' \
  - "$tag" >/dev/null
echo "built $tag from $node ($("$node" --version)) and npm $(node "$npm_dir/bin/npm-cli.js" --version)"
