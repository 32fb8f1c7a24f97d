#!/usr/bin/env bash
# Install the build into a temporary prefix, then build a consumer against it
# twice: with pkg-config and with find_package(pqstep), shared and static, and
# check that each reads the bundled sample's footer as pyarrow would count it
# (122000 rows, 61 row groups: the values gen_sample.py writes).
# Usage: check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sample="$src/data/sample/lineitem_61rg.parquet"
want="122000 61"

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/pqstep/pqstep.h"

# pkg-config, shared library
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib64/pkgconfig"
cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer.c" -o "$tmp/pc_shared" \
   $(pkg-config --cflags --libs pqstep)
got=$(LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib64" "$tmp/pc_shared" "$sample")
[[ "$got" == "$want "* ]] || { echo "pkg-config shared: got '$got', want '$want ...'"; exit 1; }

# pkg-config, static library
cc -std=c11 -Wall -Wextra -Werror "$src/tests/install/consumer.c" -o "$tmp/pc_static" \
   $(pkg-config --cflags pqstep) "$tmp"/prefix/lib*/libpqstep.a $(pkg-config --libs-only-other --libs-only-L --static pqstep | sed 's/-lpqstep//') \
   $(pkg-config --static --libs-only-l pqstep | sed 's/-lpqstep//')
got=$("$tmp/pc_static" "$sample")
[[ "$got" == "$want "* ]] || { echo "pkg-config static: got '$got'"; exit 1; }

# find_package(pqstep)
cmake -S "$src/tests/install" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
for t in consumer_shared consumer_static; do
    got=$("$tmp/cm/$t" "$sample")
    [[ "$got" == "$want "* ]] || { echo "find_package $t: got '$got'"; exit 1; }
done
echo "install check: pkg-config (shared, static) and find_package (shared, static) all read '$want'"
echo "1 passed, 0 failed"
