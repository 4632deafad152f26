#!/bin/sh
# The state a check run must leave as it found: every installed package with its version, and every file and
# directory under the trees a site.yml run writes to (a file's type, size, mode, owner and modification time; a
# directory's mode and owner: what it holds is listed itself). Left out: what the system rewrites by itself
# (systemd's state, the linker's cache), apt's binary caches (apt rebuilds them whenever it opens its lists, a query
# in check mode too) and the test layer's own cache of the modules' compiled code (BLACKWELL_TEST_ZIP_CODE_CACHE,
# a hook tests/bin/bootstrap.sh installs).
set -eu
dpkg-query -W -f '${Package} ${Version} ${Status}\n'
find /etc /opt /srv /usr /var/lib /var/cache -xdev \
  \( -path /var/lib/systemd -o -path /var/cache/ldconfig -o -path /var/cache/apt/pkgcache.bin \
     -o -path /var/cache/apt/srcpkgcache.bin -o -path /var/cache/blackwell-test \) -prune \
  -o -type d -printf '%p d %m %u\n' -o -printf '%p %y %s %m %u %T@\n' | sort
